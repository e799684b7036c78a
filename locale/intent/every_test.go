package intent_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/intent/internal/source"
)

// TestEveryLanguageOfTheData compiles Home Assistant's templates of every
// language the pinned data holds (not only the four the box embeds) and
// matches sentences sampled from each: the matcher reads them all. Skips
// without the tarball beside the repository.
func TestEveryLanguageOfTheData(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every language: not in -short")
	}
	if _, err := os.Stat(tarball); err != nil {
		t.Skipf("%s is absent", tarball)
	}
	all, err := source.TarballLanguages(tarball)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := source.FromTarball(tarball, all)
	if err != nil {
		t.Fatal(err)
	}
	low, compiled, empty := 0, 0, 0
	for _, lang := range all {
		src, ok := srcs[lang]
		if !ok {
			continue // a folder with no sentences
		}
		l, err := intent.Compile(src)
		if errors.Is(err, intent.ErrNoSpaces) {
			t.Logf("%s: not compiled: %v", lang, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", lang, err)
			continue
		}
		compiled++
		lists := sampleHouse(l)
		samples := l.Samples(rand.New(rand.NewPCG(1, 2)), 1, lists)
		if len(samples) == 0 {
			empty++ // placeholders only
			continue
		}
		got := 0
		for _, s := range samples {
			if r, _, ok := l.Recognize(s.Text, intent.Options{Lists: lists, Context: s.Context}); ok && r.Intent == s.Intent {
				got++
			}
		}
		recall := 100 * float64(got) / float64(len(samples))
		t.Logf("%s: %d of %d sampled sentences matched their intent (%.1f %%)", lang, got, len(samples), recall)
		if recall < 90 {
			low++
		}
	}
	t.Logf("%d of %d languages compiled (%d with no sentences yet); %d under 90 %% recall on their samples", compiled, len(srcs), empty, low)
	if low > 0 {
		t.Errorf("%d languages under 90 %% recall on sentences sampled from their own templates", low)
	}
}
