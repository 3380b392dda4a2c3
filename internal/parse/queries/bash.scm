; Bash tags. Commands that run a function of the script are its calls; common tools are left out.
(function_definition name: (word) @name) @definition.function
((program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
((program (variable_assignment name: (variable_name) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)
(program (variable_assignment name: (variable_name) @name) @definition.variable)

(command name: (command_name (word) @reference.call)
  (#not-any-of? @reference.call "echo" "printf" "exit" "set" "unset" "cd" "source" "." "local" "export" "readonly" "declare" "return" "shift" "test" "[" "eval" "exec" "read" "true" "false" "mkdir" "rm" "cp" "mv" "cat" "grep" "sed" "awk" "ls" "sleep" "dirname" "basename" "trap" "wait" "kill" "command" "type" "which" "sort" "head" "tail" "tr" "cut" "xargs" "find" "chmod" "chown" "touch" "ln" "date" "env" "sudo"))

(comment) @comment
(command name: (command_name (word) @_c) argument: (_) @import (#any-of? @_c "source" "."))
[(string) (raw_string)] @string
