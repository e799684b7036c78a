package storage

import "context"

// Settings are small values the user changes by voice and expects kept
// across reboots: the volume, the microphone mute, the home location.
type Settings struct{ db *DB }

// Settings returns the settings of db.
func (db *DB) Settings() *Settings { return &Settings{db: db} }

// Get reads setting key into v, reporting whether it was set.
func (s *Settings) Get(ctx context.Context, key string, v any) (bool, error) {
	return s.db.get(ctx, "read setting "+key, "setting/"+key, v)
}

// Set stores setting key.
func (s *Settings) Set(ctx context.Context, key string, v any) error {
	return s.db.put(ctx, "write setting "+key, "setting/"+key, v)
}
