//! Integrations: panic reporting and (feature `tracing-layer`) a `tracing` layer.

pub mod panic;
#[cfg(feature = "tracing-layer")]
#[cfg_attr(docsrs, doc(cfg(feature = "tracing-layer")))]
pub mod tracing_layer;
