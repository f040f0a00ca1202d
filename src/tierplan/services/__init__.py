"""Use cases: each public function that writes commits once, or raises and writes nothing."""
