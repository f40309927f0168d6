"""The plumbing under the public calls: argument checks, the fast-call path into compiled code,
parallel launch, long runs in slices, atomic files, memory checks, start-up and the compile
notice. Nothing here is public API; modules here import nothing from the wings above them
except the flat single-state calls."""
