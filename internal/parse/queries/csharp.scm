; C# tags. Type names are plain identifiers here, so type references are taken where a type stands.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.field
(field_declaration (modifier) @_m (variable_declaration (variable_declarator name: (identifier) @name)) (#eq? @_m "const")) @definition.constant
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.constant

(invocation_expression function: (identifier) @reference.call (#not-eq? @reference.call "nameof"))
(invocation_expression function: (member_access_expression name: (identifier) @reference.call))
(invocation_expression function: (conditional_access_expression (member_binding_expression name: (identifier) @reference.call)))
(invocation_expression function: (generic_name (identifier) @reference.call))
(invocation_expression function: (member_access_expression name: (generic_name (identifier) @reference.call)))
(object_creation_expression type: (identifier) @reference.type)
(object_creation_expression type: (generic_name (identifier) @reference.type))
(object_creation_expression type: (qualified_name name: (identifier) @reference.type))
(base_list (identifier) @reference.type)
(base_list (generic_name (identifier) @reference.type))
(base_list (qualified_name name: (identifier) @reference.type))
(parameter type: (identifier) @reference.type)
(parameter type: (generic_name (identifier) @reference.type))
(method_declaration returns: (identifier) @reference.type)
(method_declaration returns: (generic_name (identifier) @reference.type))
(property_declaration type: (identifier) @reference.type)
(property_declaration type: (generic_name (identifier) @reference.type))
(variable_declaration type: (identifier) @reference.type)
(variable_declaration type: (generic_name (identifier) @reference.type))
(type_argument_list (identifier) @reference.type)

(comment) @comment
(using_directive [(identifier) (qualified_name)] @import)
[(string_literal) (verbatim_string_literal) (interpolated_string_expression) (raw_string_literal)] @string
