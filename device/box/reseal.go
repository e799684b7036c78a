package box

import (
	"context"
	"log/slog"

	"github.com/harkbox/hark/reply/redact"
	"github.com/harkbox/hark/storage"
)

// resealFacts seals the facts kept in clear that hold a secret as the
// memory now seals one it is told (an older version did not read a
// secret said in German, Spanish or French): each is sealed where it is
// kept (storage.Facts.Seal). It reports how many it sealed; a store that
// cannot write keeps them as they are.
func resealFacts(ctx context.Context, facts *storage.Facts, log *slog.Logger) int {
	all, err := facts.All(ctx)
	if err != nil {
		log.Warn("the remembered facts could not be read to seal their secrets", "err", err)
		return 0
	}
	r, n := redact.New(), 0
	for _, f := range all {
		if len(f.Sealed) > 0 {
			continue
		}
		shown, kinds := r.Redact(f.Text)
		if len(kinds) == 0 {
			continue
		}
		if _, err := facts.Seal(ctx, f, shown); err != nil {
			log.Warn("a remembered fact holding a secret is still kept in clear", "fact", f.ID, "err", err)
			return n
		}
		n++
	}
	if n > 0 {
		log.Info("remembered facts holding a secret are sealed now", "facts", n)
	}
	return n
}
