package storage

import (
	"context"
	"strings"
)

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

// Delete removes setting key; one that is not set is no error.
func (s *Settings) Delete(ctx context.Context, key string) error {
	return s.db.del(ctx, "delete setting "+key, "setting/"+key)
}

// Keys lists the settings whose keys begin with prefix, in key order.
func (s *Settings) Keys(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	err := s.db.scan(ctx, "list settings "+prefix, "setting/"+prefix, func(key string, _ []byte) error {
		keys = append(keys, strings.TrimPrefix(key, "setting/"))
		return nil
	})
	return keys, err
}
