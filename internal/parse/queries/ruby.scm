; Ruby tags. Methods in a class or module are methods of it; a top-level def is a function.
(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution name: (constant) @name)) @definition.module
(method name: (identifier) @name (#eq? @name "initialize")) @definition.constructor
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
(call
  method: (identifier) @_m
  arguments: (argument_list (simple_symbol) @name)
  (#any-of? @_m "attr_reader" "attr_writer" "attr_accessor")) @definition.field

(call method: (identifier) @reference.call
  (#not-any-of? @reference.call "require" "require_relative" "load" "attr_reader" "attr_writer" "attr_accessor" "puts" "print" "p" "raise" "include" "extend" "prepend" "private" "protected" "public" "new" "lambda" "proc" "loop" "format"))
(constant) @reference.type

(comment) @comment
(call
  method: (identifier) @_m
  arguments: (argument_list . (string (string_content) @import))
  (#any-of? @_m "require" "require_relative" "load" "autoload"))
(string) @string
