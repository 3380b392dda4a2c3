; Java tags.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
((field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(enum_constant name: (identifier) @name) @definition.constant

(method_invocation name: (identifier) @reference.call)
; package parts of a scoped type are type identifiers too: keep the capitalised ones
((type_identifier) @reference.type (#match? @reference.type "^[A-Z]"))

[(line_comment) (block_comment)] @comment
(import_declaration [(scoped_identifier) (identifier)] @import)
(string_literal) @string
