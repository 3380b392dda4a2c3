; C tags (also inherited by C++). Function names sit under pointer declarators for pointer results.
; a test written with a macro, TEST(Suite, Name) { ... } and TEST_IMPL(name) { ... }, is named by its
; arguments, not by the macro; these come before the general
; patterns, which match the same node (C++ writes the first two shapes; C the third)
((function_definition !type declarator: (function_declarator declarator: (identifier) @_macro
    parameters: (parameter_list . (parameter_declaration type: (type_identifier) @parent) . (parameter_declaration type: (type_identifier) @name) .))) @definition.function
  (#match? @_macro "^[A-Z][A-Z0-9_]+$"))
((function_definition !type declarator: (function_declarator declarator: (identifier) @_macro
    parameters: (parameter_list . (parameter_declaration type: (type_identifier) @name) .))) @definition.function
  (#match? @_macro "^[A-Z][A-Z0-9_]+$"))

((function_definition type: (type_identifier) @_macro declarator: (parenthesized_declarator (identifier) @name)) @definition.function
  (#match? @_macro "^[A-Z][A-Z0-9_]+$"))
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(translation_unit (declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function)

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(enumerator name: (identifier) @name) @definition.constant
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field

(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable)
(translation_unit (declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable)

(call_expression function: (identifier) @reference.call
  (#not-any-of? @reference.call "printf" "fprintf" "sprintf" "snprintf" "malloc" "calloc" "realloc" "free" "memcpy" "memset" "memmove" "memcmp" "strlen" "strcmp" "strncmp" "strcpy" "strncpy" "assert" "sizeof"))
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(type_identifier) @reference.type

(comment) @comment
(preproc_include path: (_) @import)
(string_literal) @string
