package classify

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
)

// ChainOptions configures a Chain. The zero value is the default
// classification: no explicit globs, no plugins, default name patterns.
type ChainOptions struct {
	// WriteTools are the --write-tools globs. When not empty they are
	// consulted first and replace the default write patterns entirely.
	WriteTools []string
	// ReadTools are the --read-tools globs, consulted first with WriteTools;
	// the read prefixes stay in force.
	ReadTools []string
	// Plugins are classifier stages (WASM plugins) consulted in order after
	// the explicit globs and before the annotations; the first one with an
	// opinion decides.
	Plugins []Classifier
	// IdempotentTools are the --idempotent-tools globs: a write tool that
	// matches one is idempotent (behaviour §4.8).
	IdempotentTools []string
	// IgnoreIdempotentHint makes the idempotentHint annotation count for
	// nothing (--ignore-idempotent-hint); IdempotentTools still apply.
	IgnoreIdempotentHint bool
}

// Chain classifies tools with the stages of behaviour §2.2 in priority order:
// explicit globs, plugins, MCP annotations, name patterns; a tool none of
// them decides is Unclassified. A Chain is safe for concurrent use.
//
// Results are cached per tool definition (name, description, annotations and
// input schema), so each stage, in particular a plugin, runs once per
// definition.
//
// Only tools the upstream listed are passed to a Chain; a call to any other
// tool is Unknown (see NotListed and Listing.Lookup), even if a glob matches
// its name.
type Chain struct {
	stages  []Classifier
	plugins int // stages[1:1+plugins] are plugins

	idempotent []Glob // --idempotent-tools
	ignoreHint bool   // --ignore-idempotent-hint

	mu    sync.Mutex
	cache map[[32]byte]*cacheEntry
}

type cacheEntry struct {
	once sync.Once
	r    Result
}

// maxCache bounds the cache; an upstream that keeps inventing tool
// definitions gets them classified uncached beyond it.
const maxCache = 10000

// NewChain builds the classification chain.
func NewChain(opts ChainOptions) *Chain {
	stages := []Classifier{NewExplicit(opts.WriteTools, opts.ReadTools)}
	stages = append(stages, opts.Plugins...)
	stages = append(stages, Annotations{}, NewNames(len(opts.WriteTools) == 0))
	return &Chain{stages: stages, plugins: len(opts.Plugins), cache: make(map[[32]byte]*cacheEntry),
		idempotent: compileAll(opts.IdempotentTools), ignoreHint: opts.IgnoreIdempotentHint}
}

// Classify returns the tool's class and reason; it always returns a result,
// Unclassified when no stage has an opinion.
//
// A stage answer with a class other than Read, Write or Unclassified (a
// misbehaving plugin) counts as no opinion, as does a plugin stage that
// panics; an empty reason is replaced so the startup table never shows "()".
func (c *Chain) Classify(t Tool) Result {
	key := definitionKey(t)
	c.mu.Lock()
	e, ok := c.cache[key]
	if !ok {
		e = &cacheEntry{}
		if len(c.cache) < maxCache {
			c.cache[key] = e
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.r = c.withIdempotency(t, c.classify(t)) })
	return e.r
}

// withIdempotency marks a write tool idempotent (behaviour §4.8) when it
// matches an --idempotent-tools glob or, unless the hint is ignored, its
// annotations say idempotentHint: true; the reason then says why. Reads
// and unclassified tools are never idempotent: only writes are faulted
// and judged.
func (c *Chain) withIdempotency(t Tool, r Result) Result {
	r.Idempotent = false
	if r.Class != Write {
		return r
	}
	why := ""
	if g, ok := firstMatch(c.idempotent, t.Name); ok {
		why = "--idempotent-tools glob " + g.String()
	} else if h := parseHints(t.Annotations); !c.ignoreHint && h.Idempotent != nil && *h.Idempotent {
		why = "annotation idempotentHint=true"
	}
	if why != "" {
		r.Idempotent = true
		r.Reason += "; idempotent: " + why
	}
	return r
}

func (c *Chain) classify(t Tool) Result {
	for i, s := range c.stages {
		isPlugin := i >= 1 && i <= c.plugins
		r, ok := callStage(s, t, isPlugin)
		if !ok {
			continue
		}
		switch r.Class {
		case Read, Write, Unclassified:
		default:
			continue
		}
		if r.Reason == "" {
			r.Reason = fmt.Sprintf("classifier stage %d gave no reason", i+1)
		}
		return r
	}
	return Result{Class: Unclassified, Reason: unclassifiedReason(t)}
}

// callStage runs one stage; a panicking plugin counts as having no opinion
// (the plugin host reports plugin failures; the proxy keeps running).
func callStage(s Classifier, t Tool, isPlugin bool) (r Result, ok bool) {
	if isPlugin {
		defer func() {
			if recover() != nil {
				r, ok = Result{}, false
			}
		}()
	}
	return s.Classify(t)
}

// unclassifiedReason is "no annotation, no pattern match", except when the
// tool carries a hint that gave no opinion on its own (destructiveHint:
// false), which the reason then names instead of claiming there was none.
func unclassifiedReason(t Tool) string {
	if h := parseHints(t.Annotations); h.Destructive != nil && !*h.Destructive && h.ReadOnly == nil {
		return "only annotation destructiveHint=false, no pattern match"
	}
	return "no annotation, no pattern match"
}

// definitionKey hashes the parts of a tool definition a stage may look at,
// each length-prefixed so that no two definitions share a key by
// concatenation.
func definitionKey(t Tool) [32]byte {
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{[]byte(t.Name), []byte(t.Description), t.Annotations, t.InputSchema} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}
