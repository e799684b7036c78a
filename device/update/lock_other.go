//go:build !unix

package update

// lock does nothing where there is no flock: the box runs Linux.
func (d *Downloader) lock() (unlock func(), err error) { return func() {}, nil }
