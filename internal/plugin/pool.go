package plugin

import (
	"context"
	"sync"
)

// pool hands out instances exclusively: an instance is never used by two
// goroutines at once. At most size idle instances are kept; at most max
// are alive; an instance is discarded after a failed call, after
// RecycleCalls calls or when its memory reached the high-water mark.
type pool struct {
	mu     sync.Mutex
	idle   []*instance
	size   int
	sem    chan struct{}
	closed bool
	// create makes a new initialised instance.
	create func(ctx context.Context) (*instance, error)
	// startTimeout bounds waiting for a slot plus creating an instance.
	startTimeout func() (context.Context, context.CancelFunc)
	// recycle reports whether a healthy instance should be closed anyway.
	recycle func(in *instance) bool
	// onRecycle counts recycled instances.
	onRecycle func()
}

func (p *pool) get() (*instance, error) {
	ctx, cancel := p.startTimeout()
	defer cancel()
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.sem
		return nil, errClosed
	}
	if n := len(p.idle); n > 0 {
		in := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return in, nil
	}
	p.mu.Unlock()
	in, err := p.create(ctx)
	if err != nil {
		<-p.sem
		return nil, err
	}
	return in, nil
}

// put returns in after a call; healthy is false when the call failed.
func (p *pool) put(in *instance, healthy bool) {
	defer func() { <-p.sem }()
	if healthy && p.recycle(in) {
		p.onRecycle()
		healthy = false
	}
	p.mu.Lock()
	if healthy && !p.closed && len(p.idle) < p.size {
		p.idle = append(p.idle, in)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	in.close()
}

// seed adds the instance created at load.
func (p *pool) seed(in *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = append(p.idle, in)
}

// drain closes the idle instances (the plugin was disabled).
func (p *pool) drain() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, in := range idle {
		in.close()
	}
}

func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.drain()
}
