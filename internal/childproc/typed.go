package childproc

import "context"

// Of is a Child whose hello and counters have types of their own: what
// the server's and the proxy's children are, with nothing to write but
// their types.
type Of[H, C any] struct {
	*Child
	hello H
}

// StartOf is Start, decoding the hello into an H.
func StartOf[H, C any](ctx context.Context, o Options) (*Of[H, C], error) {
	t := &Of[H, C]{}
	c, err := Start(ctx, o, &t.hello)
	if err != nil {
		return nil, err
	}
	t.Child = c
	return t, nil
}

// Hello returns what the child reported at start.
func (t *Of[H, C]) Hello() H { return t.hello }

// Counters asks the child for its counters.
func (t *Of[H, C]) Counters() (C, error) {
	var cs C
	err := t.Request(ReqCounters, &cs)
	return cs, err
}
