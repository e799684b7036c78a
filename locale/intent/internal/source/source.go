// Package source reads sentence templates written in HassIL's YAML into
// intent.Source: Home Assistant's intent data from its release tarball,
// and Hark's own template files. Only the generator and the test that
// keeps the compiled data current use it, so the YAML reader never ships
// in the binary.
package source

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/harkbox/hark/locale/intent"
)

// FromTarball reads the sentence templates of the languages wanted from a
// tarball of Home Assistant's intents repository (top folder
// home-assistant-intents-<commit>/, templates in sentences/<lang>/*.yaml).
func FromTarball(file string, langs []string) (map[string]intent.Source, error) {
	files := map[string]map[string][]byte{} // lang → file name → YAML
	err := walkSentences(file, func(lang, name string, r io.Reader) error {
		if !slices.Contains(langs, lang) {
			return nil
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if files[lang] == nil {
			files[lang] = map[string][]byte{}
		}
		files[lang][name] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]intent.Source{}
	for _, lang := range langs {
		if len(files[lang]) == 0 {
			return nil, fmt.Errorf("source: %s has no sentences for %q", file, lang)
		}
		s, err := fromFiles(lang, files[lang])
		if err != nil {
			return nil, err
		}
		out[lang] = s
	}
	return out, nil
}

// TarballLanguages lists the languages a tarball of Home Assistant's
// intents holds templates for.
func TarballLanguages(file string) ([]string, error) {
	var out []string
	err := walkSentences(file, func(lang, _ string, _ io.Reader) error {
		if !slices.Contains(out, lang) {
			out = append(out, lang)
		}
		return nil
	})
	return out, err
}

// walkSentences calls fn with each template file of the tarball
// (sentences/<lang>/<name>.yaml) and its content.
func walkSentences(file string, fn func(lang, name string, r io.Reader) error) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("source: %s: %w", file, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("source: %s: %w", file, err)
		}
		parts := strings.Split(h.Name, "/")
		if len(parts) != 4 || parts[1] != "sentences" || !strings.HasSuffix(parts[3], ".yaml") {
			continue
		}
		if err := fn(parts[2], parts[3], tr); err != nil {
			return fmt.Errorf("source: %s: %s: %w", file, h.Name, err)
		}
	}
}

// FromDir reads a language's templates from dir/<lang>/*.yaml in fsys:
// Hark's own template files.
func FromDir(fsys fs.FS, dir, lang string) (intent.Source, error) {
	names, err := fs.Glob(fsys, path.Join(dir, lang, "*.yaml"))
	if err != nil {
		return intent.Source{}, fmt.Errorf("source: %w", err)
	}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return intent.Source{}, fmt.Errorf("source: %w", err)
		}
		files[path.Base(n)] = b
	}
	if len(files) == 0 {
		return intent.Source{}, fmt.Errorf("source: no templates for %q in %s", lang, dir)
	}
	return fromFiles(lang, files)
}

// fromFiles merges a language's YAML files in name order, as HassIL
// merges them (maps merge, lists extend, anything else is replaced), and
// reads the result.
func fromFiles(lang string, files map[string][]byte) (intent.Source, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	merged := map[string]any{}
	for _, n := range names {
		var doc map[string]any
		if err := yaml.Unmarshal(files[n], &doc); err != nil {
			return intent.Source{}, fmt.Errorf("source: %s/%s: %w", lang, n, err)
		}
		mergeMaps(merged, doc)
	}
	s, err := read(merged)
	if err != nil {
		return intent.Source{}, fmt.Errorf("source: %s: %w", lang, err)
	}
	if s.Language == "" {
		s.Language = lang
	}
	return s, nil
}

func mergeMaps(base, add map[string]any) {
	for k, v := range add {
		old, ok := base[k]
		if !ok {
			base[k] = v
			continue
		}
		switch o := old.(type) {
		case map[string]any:
			if m, ok := v.(map[string]any); ok {
				mergeMaps(o, m)
				continue
			}
		case []any:
			if l, ok := v.([]any); ok {
				base[k] = append(o, l...)
				continue
			}
		}
		base[k] = v
	}
}
