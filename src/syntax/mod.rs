//! Concrete syntax: lexer, parser, AST and canonical printer.

pub mod ast;
