//! Concrete syntax: lexer, parser, AST and canonical printer.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod printer;
