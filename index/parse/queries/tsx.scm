; inherits: typescript, jsx
