"""Price history: GET /history, /history/catalog, /instances/{id}/history, /changes."""
