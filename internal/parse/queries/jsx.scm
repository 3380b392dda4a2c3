; JSX, for JavaScript and TSX: components used as elements, and the text shown to users.
(jsx_opening_element name: (identifier) @reference.type (#match? @reference.type "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @reference.type (#match? @reference.type "^[A-Z]"))
(jsx_opening_element name: (member_expression property: (property_identifier) @reference.type))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @reference.type))
(jsx_text) @string
