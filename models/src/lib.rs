//! Device profiles and performance / power models behind one `Model` trait.
