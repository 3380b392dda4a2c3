; inherits: c
; C++ tags on top of C's. Members declared or defined in a class are methods of it; an out-of-class
; definition A::b names its owner in the qualified name.
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
; a specialization: struct formatter<T, Char> {...}
(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.struct
(namespace_definition name: (_) @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: [(destructor_name) (operator_name)] @name)) @definition.method
(declaration declarator: (function_declarator declarator: [(destructor_name) (operator_name)] @name)) @definition.method
(field_declaration declarator: (function_declarator declarator: (operator_name) @name)) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (field_identifier) @name))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @definition.function
; a macro in a class body (MOCK_METHOD(...), FRIEND_TEST(...)) declares no method of its name
((field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
  (#not-match? @name "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$"))
(field_declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))) @definition.method
(field_declaration declarator: (reference_declarator (function_declarator declarator: (field_identifier) @name))) @definition.method
((declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
  (#not-match? @name "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$"))

(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @parent name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (template_type name: (type_identifier) @parent) name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @parent name: (identifier) @name)))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @parent name: (identifier) @name)))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (template_type name: (type_identifier) @parent) name: (identifier) @name)))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (template_type name: (type_identifier) @parent) name: (identifier) @name)))) @definition.method
; outer::Inner::f: the nearest scope is the owner
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: (namespace_identifier) @parent name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method
; an explicit specialization: template <> bool is_digit<10>(char c)
(function_definition declarator: (function_declarator declarator: (template_function name: (identifier) @name))) @definition.function

; int count = 0; in a class reads as a function with a pure-virtual clause
(field_declaration_list (function_definition declarator: (field_identifier) @name (pure_virtual_clause)) @definition.field)

; namespace-level constants and variables
((declaration (type_qualifier) @_q declarator: (init_declarator declarator: (identifier) @name)) @definition.constant
  (#any-of? @_q "const" "constexpr"))
(declaration_list (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(declaration_list (declaration declarator: (identifier) @name) @definition.variable)

(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (template_function name: (identifier) @reference.call)
  (#not-any-of? @reference.call "static_cast" "dynamic_cast" "reinterpret_cast" "const_cast" "make_unique" "make_shared" "move" "forward"))
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @reference.call)))
(call_expression function: (field_expression field: (template_method name: (field_identifier) @reference.call)))
(new_expression type: (type_identifier) @reference.type)
((namespace_identifier) @reference.type (#not-any-of? @reference.type "std"))

[(raw_string_literal)] @string
