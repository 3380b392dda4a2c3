; Python tags. A class or function whose body opens with a string has that docstring as its doc;
; the pattern with the docstring comes first so it wins over the plain one.

(class_definition name: (identifier) @name body: (block . (expression_statement (string) @doc))) @definition.class
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name body: (block . (expression_statement (string) @doc))) @definition.function
(function_definition name: (identifier) @name) @definition.function

(module (expression_statement (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call function: (identifier) @reference.call
  (#not-any-of? @reference.call "len" "print" "isinstance" "issubclass" "str" "int" "float" "bool" "list" "dict" "set" "tuple" "range" "enumerate" "zip" "super" "getattr" "setattr" "hasattr" "type" "open" "sorted" "min" "max" "sum" "any" "all" "iter" "next" "repr" "format" "abs" "map" "filter" "id" "hash" "vars" "dir" "callable" "reversed" "round" "bytes" "object"))
(call function: (attribute attribute: (identifier) @reference.call))
(type (identifier) @reference.type)
(type (generic_type (identifier) @reference.type))
(class_definition superclasses: (argument_list (identifier) @reference.type))
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @reference.type)))

(comment) @comment
(module . (expression_statement (string) @comment))

(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (_) @import)

(string) @string
