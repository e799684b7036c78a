package source

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harkbox/hark/locale/intent"
)

// Generate compiles the templates of langs into dir/data: Hark's own from
// dir/templates always, Home Assistant's from the tarball ha when it is
// given. Files are written only when their content changes.
func Generate(dir, ha string, langs []string) error {
	files, err := Compiled(dir, ha, langs)
	if err != nil {
		return err
	}
	for name, b := range files {
		p := filepath.Join(dir, "data", name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
			continue
		}
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			return fmt.Errorf("source: %w", err)
		}
		if err := os.Rename(tmp, p); err != nil {
			return fmt.Errorf("source: %w", err)
		}
	}
	return nil
}

// Compiled returns the compact files for langs by name (ha-en.json.gz,
// hark-en.json.gz), without writing them. Each is checked to compile, Hark's
// own merged with Home Assistant's when the tarball is given (they may use
// its lists and rules).
func Compiled(dir, ha string, langs []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	put := func(name string, s intent.Source, check intent.Source) error {
		if _, err := intent.Compile(check); err != nil {
			return fmt.Errorf("source: %s does not compile: %w", name, err)
		}
		var buf bytes.Buffer
		if err := s.Encode(&buf); err != nil {
			return err
		}
		out[name] = buf.Bytes()
		return nil
	}
	var srcs map[string]intent.Source
	if ha != "" {
		var err error
		if srcs, err = FromTarball(ha, langs); err != nil {
			return nil, err
		}
	}
	for _, lang := range langs {
		own, err := FromDir(os.DirFS(dir), "templates", lang)
		if err != nil {
			return nil, err
		}
		if srcs == nil {
			var buf bytes.Buffer
			if err := own.Encode(&buf); err != nil {
				return nil, err
			}
			out["hark-"+lang+".json.gz"] = buf.Bytes()
			continue
		}
		hs := srcs[lang]
		if err := put("ha-"+lang+".json.gz", hs, hs); err != nil {
			return nil, err
		}
		both := clone(hs)
		both.Merge(own)
		if err := put("hark-"+lang+".json.gz", own, both); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// clone copies a source deeply enough for Merge not to change it.
func clone(s intent.Source) intent.Source {
	var buf bytes.Buffer
	if err := s.Encode(&buf); err != nil {
		return s
	}
	c, err := intent.DecodeSource(&buf)
	if err != nil {
		return s
	}
	return c
}
