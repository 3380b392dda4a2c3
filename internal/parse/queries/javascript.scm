; inherits: ecma, jsx
(field_definition property: (property_identifier) @name) @definition.field
(class_heritage (identifier) @reference.type)
(class_heritage (member_expression property: (property_identifier) @reference.type))
