package intent_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/intent/internal/source"
)

// tarball is Home Assistant's intent data, beside the repository.
const tarball = "../../../shared/third_party/home-assistant-intents-aa550032.tar.gz"

var langs = []string{"en", "de", "fr", "es"}

func TestLanguagesLoad(t *testing.T) {
	if got := intent.Languages(); !slices.Equal(got, []string{"de", "en", "es", "fr"}) {
		t.Errorf("Languages() = %v, want de en es fr", got)
	}
	for _, lang := range langs {
		if _, err := intent.Load(lang); err != nil {
			t.Errorf("%s: %v", lang, err)
		}
	}
	if _, err := intent.Load("tlh"); err == nil {
		t.Error("Klingon loaded")
	}
}

// unzip is a compiled file's JSON: the gzip bytes may differ between Go
// versions, the content may not.
func unzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDataIsCurrent compiles the templates again and compares: Hark's own
// always, Home Assistant's when its tarball is beside the repository. Run
// go generate in locale/intent when it fails.
func TestDataIsCurrent(t *testing.T) {
	ha := tarball
	if _, err := os.Stat(ha); err != nil {
		t.Logf("%s is absent: checking Hark's own templates only", ha)
		ha = ""
	}
	files, err := source.Compiled(".", ha, langs)
	if err != nil {
		t.Fatal(err)
	}
	if ha != "" && len(files) != 2*len(langs) || len(files) < len(langs) {
		t.Fatalf("%d files compiled", len(files))
	}
	for name, b := range files {
		old, err := os.ReadFile(filepath.Join("data", name))
		if err != nil {
			t.Errorf("%s: %v (run go generate)", name, err)
			continue
		}
		if !bytes.Equal(unzip(t, old), unzip(t, b)) {
			t.Errorf("data/%s is not what the templates compile to: run go generate in locale/intent", name)
		}
	}
}

// sampleHouse has a made-up device for every domain and device class the
// language's templates ask of a name, and areas and floors whose names are
// no words of any template.
func sampleHouse(l *intent.Language) map[string]*intent.List {
	syll := []string{"zor", "vex", "quil", "mab", "tro", "dun", "kel", "prax"}
	word := func(i int) string { return syll[i%len(syll)] + syll[(i/len(syll)+3)%len(syll)] + "o" }
	var names []intent.Value
	for i, c := range l.NameContexts() {
		names = append(names, intent.Value{Text: word(i) + " " + word(i+11), Context: c})
	}
	return map[string]*intent.List{
		"name":  intent.NewList(names),
		"area":  intent.NewList([]intent.Value{{Text: "Zorvexa"}, {Text: "Quilmab"}}),
		"floor": intent.NewList([]intent.Value{{Text: "Praxdun"}}),
	}
}

// TestSampledRecall makes sentences from every template of each language
// and matches them: each must give the intent it was made from.
func TestSampledRecall(t *testing.T) {
	for _, lang := range langs {
		l, err := intent.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		lists := sampleHouse(l)
		samples := l.Samples(rand.New(rand.NewPCG(1, 2)), 3, lists)
		got, sameSlots := 0, 0
		var misses []string
		for _, s := range samples {
			r, _, ok := l.Recognize(s.Text, intent.Options{Lists: lists, Context: s.Context})
			if ok && r.Intent == s.Intent {
				got++
				continue
			}
			if len(misses) < 15 {
				misses = append(misses, s.Intent+": "+s.Text+" → "+r.Intent+" ["+s.Template+"]")
			}
		}
		_ = sameSlots
		t.Logf("%s: %d of %d sentences sampled from the templates matched their intent (%.1f %%)", lang, got, len(samples), 100*float64(got)/float64(len(samples)))
		if float64(got) < 0.95*float64(len(samples)) {
			t.Errorf("%s: recall %d of %d, want 95 %%; e.g.\n%s", lang, got, len(samples), strings.Join(misses, "\n"))
		}
	}
}
