"""Answer and set matchers, one module per scorer profile (plus the shared types in base)."""
