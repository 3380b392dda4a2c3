; inherits: ecma
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.field))
(public_field_definition name: (property_identifier) @name) @definition.field

((type_identifier) @reference.type)
(extends_clause value: (identifier) @reference.type)
(extends_clause value: (member_expression property: (property_identifier) @reference.type))
