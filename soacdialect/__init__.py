"""soac: Futhark-style second-order array combinators as an xDSL dialect."""
