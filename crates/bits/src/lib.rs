//! gamewire's bit core: an LSB-first bit reader and writer.
