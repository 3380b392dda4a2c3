; Shared by JavaScript, TypeScript and TSX (their grammars agree on these nodes).

(class_declaration name: (_) @name) @definition.class
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition name: (_) @name) @definition.method
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; const f = () => ..., with the declaration as the definition so that the signature keeps "const"
; (in "const a = ..., b = ..." the first declarator gets the whole statement)
(lexical_declaration . (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function
(variable_declaration . (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])) @definition.function

; top-level bindings: UPPER_CASE const is a constant, anything else a variable
(program (lexical_declaration . (variable_declarator name: (identifier) @name)) @definition.constant (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program (export_statement declaration: (lexical_declaration . (variable_declarator name: (identifier) @name)) @definition.constant) (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program (lexical_declaration . (variable_declarator name: (identifier) @name)) @definition.variable)
(program (export_statement declaration: (lexical_declaration . (variable_declarator name: (identifier) @name)) @definition.variable))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))

(call_expression function: (identifier) @reference.call (#not-any-of? @reference.call "require" "setTimeout" "setInterval" "parseInt" "parseFloat"))
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.type)
(new_expression constructor: (member_expression property: (property_identifier) @reference.type))

(comment) @comment

(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression function: (identifier) @_f arguments: (arguments . (string) @import) (#eq? @_f "require"))
(call_expression function: (import) arguments: (arguments . (string) @import))

[(string) (template_string)] @string
