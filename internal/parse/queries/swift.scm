; Swift tags. class, struct, enum, actor and extension are all class declarations told apart by their
; keyword; an extension is a scope whose functions are methods of the extended type.
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name)) @scope
(protocol_declaration name: (type_identifier) @name) @definition.interface
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field
(function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration name: "init" @name) @definition.constructor
(typealias_declaration name: (type_identifier) @name) @definition.type
(enum_entry name: (simple_identifier) @name) @definition.constant
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(source_file (property_declaration (value_binding_pattern "let") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)

(call_expression (simple_identifier) @reference.call
  (#not-any-of? @reference.call "print" "max" "min" "fatalError" "precondition" "assert" "debugPrint"))
(call_expression (navigation_expression (navigation_suffix (simple_identifier) @reference.call)))
(user_type (type_identifier) @reference.type)

[(comment) (multiline_comment)] @comment
(import_declaration (identifier) @import)
[(line_string_literal) (multi_line_string_literal)] @string
