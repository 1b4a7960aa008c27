//! PTX front end: lexer, parser, IR, printer.
