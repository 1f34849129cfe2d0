package results

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// How the records of one case's shards fold into the one record of the
// case (tlsbench merge), as a field's `fold` tag declares it. A figure
// added to Record with a tag is merged without a line of the merge
// changing; a field without one is the merge's own business (the counts
// every record has, the histograms, samples, notes).
const (
	// FoldSum adds the shards' values up: counts and rates of the
	// load each shard made. Known when every shard's record has it.
	FoldSum = "sum"
	// FoldMax keeps the largest: figures of the machine each shard ran
	// on, or of the longest shard. Known when any shard's record has it.
	FoldMax = "max"
	// FoldPerHandshake weights each shard's figure per handshake by its
	// handshakes. Known when every shard's record has it.
	FoldPerHandshake = "per-handshake"
	// FoldPerIteration combines per-iteration figures per handshake
	// (paired with samples_us): iteration i of the union is the shards'
	// iteration i, Σ value·n / Σ n over their sample_handshakes, as
	// FoldPerHandshake folds the case's figure. Known when every shard's
	// record has it.
	FoldPerIteration = "per-iteration"
)

// FoldedField is a Record field with a fold rule.
type FoldedField struct {
	// Name is the field's JSON name, which the merge's errors give.
	Name string
	// Rule is FoldSum, FoldMax, FoldPerHandshake or FoldPerIteration.
	Rule string
	// Int says the field is a count (*int64); otherwise it is a
	// measurement (*float64, or float64 for one that every record has).
	Int   bool
	index int
}

// Count returns the field of r, a count, nil when r has none.
func (f FoldedField) Count(r *Record) *int64 {
	return reflect.ValueOf(r).Elem().Field(f.index).Interface().(*int64)
}

// SetCount sets the field of r, a count.
func (f FoldedField) SetCount(r *Record, v *int64) {
	reflect.ValueOf(r).Elem().Field(f.index).Set(reflect.ValueOf(v))
}

// Figure returns the field of r, a measurement, nil when r has none (a
// measurement every record has is never nil).
func (f FoldedField) Figure(r *Record) *float64 {
	v := reflect.ValueOf(r).Elem().Field(f.index)
	if v.Kind() == reflect.Float64 {
		return v.Addr().Interface().(*float64)
	}
	return v.Interface().(*float64)
}

// SetFigure sets the field of r, a measurement; nil makes one that every
// record has 0.
func (f FoldedField) SetFigure(r *Record, v *float64) {
	fv := reflect.ValueOf(r).Elem().Field(f.index)
	if fv.Kind() != reflect.Float64 {
		fv.Set(reflect.ValueOf(v))
		return
	}
	fv.SetFloat(0)
	if v != nil {
		fv.SetFloat(*v)
	}
}

// Samples returns the field of r, figures per iteration, nil when r has
// none or the field is not folded per iteration.
func (f FoldedField) Samples(r *Record) []float64 {
	if f.Rule != FoldPerIteration {
		return nil
	}
	return reflect.ValueOf(r).Elem().Field(f.index).Interface().([]float64)
}

// SetSamples sets the field of r, figures per iteration.
func (f FoldedField) SetSamples(r *Record, v []float64) {
	reflect.ValueOf(r).Elem().Field(f.index).Set(reflect.ValueOf(v))
}

// FoldedFields returns the Record fields that have a fold rule, in the
// order Record declares them.
func FoldedFields() []FoldedField { return foldedFields() }

var foldedFields = sync.OnceValue(func() []FoldedField {
	fields, err := foldTags(reflect.TypeFor[Record]())
	if err != nil {
		panic(err)
	}
	return fields
})

var (
	countType   = reflect.TypeFor[*int64]()
	figureType  = reflect.TypeFor[*float64]()
	samplesType = reflect.TypeFor[[]float64]()
)

// foldTags reads the fold tags of t's fields, refusing a rule it does
// not know and a type the rule cannot fold.
func foldTags(t reflect.Type) ([]FoldedField, error) {
	var out []FoldedField
	for i := range t.NumField() {
		sf := t.Field(i)
		rule, ok := sf.Tag.Lookup("fold")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f := FoldedField{Name: name, Rule: rule, Int: sf.Type == countType, index: i}
		switch {
		case rule != FoldSum && rule != FoldMax && rule != FoldPerHandshake && rule != FoldPerIteration:
			return nil, fmt.Errorf("results: field %s: fold rule %q is not %s, %s, %s or %s", sf.Name, rule, FoldSum, FoldMax, FoldPerHandshake, FoldPerIteration)
		case rule == FoldPerIteration && sf.Type != samplesType:
			return nil, fmt.Errorf("results: field %s: only a list of numbers folds per iteration", sf.Name)
		case rule == FoldPerIteration:
		case sf.Type != countType && sf.Type != figureType && sf.Type.Kind() != reflect.Float64:
			return nil, fmt.Errorf("results: field %s: a %s cannot be folded (want *int64, *float64 or float64)", sf.Name, sf.Type)
		case rule == FoldPerHandshake && f.Int:
			return nil, fmt.Errorf("results: field %s: a count is not a figure per handshake", sf.Name)
		}
		out = append(out, f)
	}
	return out, nil
}
