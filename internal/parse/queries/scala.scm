; Scala tags. An object is a class-like owner, so its defs are methods of it.
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(type_definition name: (type_identifier) @name) @definition.type
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(class_parameter name: (identifier) @name) @definition.field

((val_definition pattern: (identifier) @name) @definition.constant (#match? @name "^[A-Z]"))
(template_body (val_definition pattern: (identifier) @name) @definition.field)
(template_body (var_definition pattern: (identifier) @name) @definition.field)
(compilation_unit (val_definition pattern: (identifier) @name) @definition.variable)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.variable)

(call_expression function: (identifier) @reference.call (#not-any-of? @reference.call "require" "assert" "println" "print"))
(call_expression function: (field_expression field: (identifier) @reference.call))
(call_expression function: (generic_function function: (identifier) @reference.call))
(call_expression function: (generic_function function: (field_expression field: (identifier) @reference.call)))
(type_identifier) @reference.type

[(comment) (block_comment)] @comment
(import_declaration) @import
[(string) (interpolated_string_expression)] @string
