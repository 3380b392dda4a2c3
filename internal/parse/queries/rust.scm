; Rust tags. An impl block is a scope: the functions in it are methods of its type.
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.macro
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.constant

(impl_item type: (type_identifier) @name) @scope
(impl_item type: (generic_type type: (type_identifier) @name)) @scope
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @scope
(impl_item type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name))) @scope

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(call_expression function: (generic_function function: (identifier) @reference.call))
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @reference.call)))
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @reference.call)))
(macro_invocation macro: (identifier) @reference.call
  (#not-any-of? @reference.call "println" "eprintln" "print" "eprint" "format" "write" "writeln" "vec" "assert" "assert_eq" "assert_ne" "debug_assert" "debug_assert_eq" "panic" "todo" "unimplemented" "unreachable" "matches" "dbg"))
((type_identifier) @reference.type (#not-eq? @reference.type "Self"))
((scoped_identifier path: (identifier) @reference.type) (#match? @reference.type "^[A-Z]"))

[(line_comment) (block_comment)] @comment

(use_declaration argument: (_) @import)
(extern_crate_declaration name: (identifier) @import)
(mod_item name: (identifier) @import !body)

[(string_literal) (raw_string_literal)] @string
