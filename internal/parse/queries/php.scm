; PHP tags.
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name) @definition.namespace
(method_declaration name: (name) @name (#eq? @name "__construct")) @definition.constructor
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
(const_declaration (const_element (name) @name)) @definition.constant
(property_declaration (property_element (variable_name (name) @name))) @definition.field
(enum_case name: (name) @name) @definition.constant

(function_call_expression function: (name) @reference.call
  (#not-any-of? @reference.call "isset" "empty" "count" "array_map" "array_filter" "array_keys" "array_values" "in_array" "is_array" "is_string" "sprintf" "printf" "strlen" "implode" "explode"))
(function_call_expression function: (qualified_name (name) @reference.call .))
(member_call_expression name: (name) @reference.call)
(nullsafe_member_call_expression name: (name) @reference.call)
(scoped_call_expression name: (name) @reference.call)
(scoped_call_expression scope: (name) @reference.type)
(scoped_call_expression scope: (qualified_name (name) @reference.type .))
(named_type (name) @reference.type (#not-any-of? @reference.type "object" "mixed" "self" "static" "iterable" "callable" "parent"))
(named_type (qualified_name (name) @reference.type .))
(object_creation_expression (name) @reference.type)
(object_creation_expression (qualified_name (name) @reference.type .))
(base_clause (name) @reference.type)
(base_clause (qualified_name (name) @reference.type .))
(class_interface_clause (name) @reference.type)
(class_interface_clause (qualified_name (name) @reference.type .))

(comment) @comment
(namespace_use_clause [(name) (qualified_name)] @import)
(require_expression (string) @import)
(require_once_expression (string) @import)
(include_expression (string) @import)
(include_once_expression (string) @import)
(require_expression (binary_expression right: (string) @import))
(require_once_expression (binary_expression right: (string) @import))
(include_expression (binary_expression right: (string) @import))
(include_once_expression (binary_expression right: (string) @import))
[(string) (encapsed_string)] @string
