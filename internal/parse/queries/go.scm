; Go tags.

; A declaration without parentheses holds one spec: the declaration is the definition, so its range
; and signature include the keyword. (A trailing "." anchor is not enforced by this tree-sitter, so
; the parenthesised form is told apart by its text.)
((type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
  (#not-match? @definition.struct "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
  (#not-match? @definition.interface "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name)) @definition.type
  (#not-match? @definition.type "^type\\s*\\("))
((type_declaration (type_alias name: (type_identifier) @name)) @definition.type
  (#not-match? @definition.type "^type\\s*\\("))
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @parent
        (pointer_type (type_identifier) @parent)
        (generic_type type: (type_identifier) @parent)
        (pointer_type (generic_type type: (type_identifier) @parent))
      ]))
  name: (field_identifier) @name) @definition.method

(method_elem name: (field_identifier) @name) @definition.method
(field_declaration name: (field_identifier) @name) @definition.field

((source_file (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
  (#not-match? @definition.constant "^const\\s*\\("))
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.variable)
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

(call_expression function: (identifier) @reference.call
  (#not-any-of? @reference.call "len" "cap" "make" "new" "append" "copy" "delete" "panic" "recover" "print" "println" "close" "min" "max" "clear" "complex" "real" "imag"))
(call_expression function: (selector_expression field: (field_identifier) @reference.call))
((type_identifier) @reference.type
  (#not-any-of? @reference.type "string" "int" "int8" "int16" "int32" "int64" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr" "byte" "rune" "bool" "error" "float32" "float64" "complex64" "complex128" "any" "comparable"))

(comment) @comment
(import_spec path: (_) @import)
[(interpreted_string_literal) (raw_string_literal)] @string
