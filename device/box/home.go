package box

import (
	"context"
	"net"
	"time"

	"github.com/harkbox/hark/internal/disk"
	"github.com/harkbox/hark/reply/command/builtin"
	ha "github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/storage"
)

// home is the weather command's home: set up by the user, else the
// configured place name, geocoded once and kept.
type home struct {
	settings *storage.Settings
	client   *weather.Client
	name     string
}

func (h *home) Home(ctx context.Context) (weather.Place, bool, error) {
	var p weather.Place
	if ok, err := h.settings.Get(ctx, "home_place", &p); err != nil || ok {
		return p, ok, err
	}
	if h.name == "" {
		return p, false, nil
	}
	p, err := h.client.Geocode(ctx, h.name)
	if err != nil {
		return p, false, err
	}
	return p, true, h.SetHome(ctx, p)
}

func (h *home) SetHome(ctx context.Context, p weather.Place) error {
	return h.settings.Set(ctx, "home_place", p)
}

// known reports whether the weather's home is set up or configured,
// without finding a configured place's coordinates.
func (h *home) known(ctx context.Context) bool {
	if h.name != "" {
		return true
	}
	var p weather.Place
	ok, err := h.settings.Get(ctx, "home_place", &p)
	return err == nil && ok
}

// setUp is what of the house the box is set up for, as the help command
// says it: Home Assistant, the weather's home.
type setUp struct {
	house *ha.Client
	home  *home
}

func (s setUp) SetUp(ctx context.Context) (home, weather bool) {
	return s.house.SetUp(ctx), s.home.known(ctx)
}

var _ builtin.Setup = setUp{}

// deviceStatus is the box as the model's device_status command reports it.
type deviceStatus struct{ b *Box }

func (d deviceStatus) Status(ctx context.Context) builtin.DeviceStatus {
	b := d.b
	st := builtin.DeviceStatus{Version: b.version, Uptime: b.uptime(), Model: b.cfg.Ollama.Model}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, ad := range addrs {
			if ipn, ok := ad.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
				st.Addresses = append(st.Addresses, ipn.IP.String())
			}
		}
	}
	st.Web = pageURLs(b.cfg.Web, b.hostName(), st.Addresses)
	if sp, err := disk.Usage(b.cfg.DataDir); err == nil {
		st.DiskUsed, st.DiskTotal = uint64(sp.Total-sp.Free), uint64(sp.Total)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, st.ModelErr = b.brain.model.Version(cctx)
	return st
}
