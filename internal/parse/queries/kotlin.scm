; Kotlin tags. Interfaces and enums are class declarations told apart by a keyword or their body.
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration (type_identifier) @name (enum_class_body)) @definition.enum
(class_declaration (type_identifier) @name) @definition.class
(object_declaration (type_identifier) @name) @definition.class
(type_alias (type_identifier) @name) @definition.type
(function_declaration (simple_identifier) @name) @definition.function
(enum_entry (simple_identifier) @name) @definition.constant
(class_parameter (binding_pattern_kind) (simple_identifier) @name) @definition.field

((property_declaration (modifiers (property_modifier) @_m) (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_m "const"))
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.field)
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)

(call_expression (simple_identifier) @reference.call
  (#not-any-of? @reference.call "repeat" "println" "print" "listOf" "mutableListOf" "mapOf" "mutableMapOf" "setOf" "require" "requireNotNull" "check" "error" "let" "also" "apply" "run" "with" "lazy" "TODO"))
(call_expression (navigation_expression (navigation_suffix (simple_identifier) @reference.call)))
(user_type (type_identifier) @reference.type)

[(line_comment) (multiline_comment)] @comment
(import_header (identifier) @import)
(string_literal) @string
