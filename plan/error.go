package plan

import (
	"fmt"
	"strings"
)

// Error is a value of a setting that cannot be used. It holds the
// setting at fault, as the table declares it, and a reason whose
// references to settings are the settings themselves (*Setting or OneOf
// arguments of its format, written with %s), named only when the error
// is written: Error writes the table's names ("handshakes 0: must be at
// least 1"), Text a caller's (the CLI's flags).
type Error struct {
	Setting *Setting
	// Also are further settings at fault together with Setting (a case
	// that no combination of their values can run), written "a/b".
	Also  []*Setting
	Value string // the value as given; "" when the reason says it

	format string
	args   []any
}

// Namer writes a setting as a message names it.
type Namer func(*Setting) string

// TableName writes a setting by its name in the table.
func TableName(s *Setting) string { return s.Name }

// Errorf returns an Error for setting s with value shown by %v (nil for
// none) and a reason formatted from format and args; an argument that is
// a *Setting or a OneOf is a reference to settings.
func Errorf(s *Setting, value any, format string, args ...any) *Error {
	v := ""
	if value != nil {
		v = fmt.Sprint(value)
	}
	return &Error{Setting: s, Value: v, format: format, args: args}
}

func (e *Error) Error() string { return e.Text(TableName) }

// Reason is what is wrong, its settings written by name.
func (e *Error) Reason(name Namer) string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		switch r := a.(type) {
		case *Setting:
			args[i] = named(name, r)
		case OneOf:
			args[i] = r.text(name)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(e.format, args...)
}

// Text is the whole message, its settings written by name: the
// setting, its value and the reason, or the reason alone when it starts
// by naming the setting (or names no setting at fault).
func (e *Error) Text(name Namer) string {
	reason := e.Reason(name)
	if e.Setting == nil {
		return reason
	}
	if strings.HasPrefix(e.format, "%s") && len(e.args) > 0 && e.args[0] == e.Setting && len(e.Also) == 0 {
		return reason
	}
	subject := name(e.Setting)
	for _, s := range e.Also {
		subject += "/" + named(name, s)
	}
	if e.Value == "" {
		return subject + ": " + reason
	}
	return subject + " " + e.Value + ": " + reason
}

// Concerns reports whether s is a setting at fault.
func (e *Error) Concerns(s *Setting) bool {
	if e.Setting == s {
		return true
	}
	for _, a := range e.Also {
		if a == s {
			return true
		}
	}
	return false
}

// named is s as name writes it; a setting the table lacks (which the
// tests refuse) is written as a placeholder rather than failing.
func named(name Namer, s *Setting) string {
	if s == nil {
		return "(a setting)"
	}
	return name(s)
}

// OneOf refers to settings any of which the reason may concern (side b
// given by --versus, --versus-server or --versus-self): written "a, b or c".
type OneOf []*Setting

func (o OneOf) text(name Namer) string {
	var b strings.Builder
	for i, s := range o {
		switch {
		case i == 0:
		case i == len(o)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(named(name, s))
	}
	return b.String()
}

// fault is an error of a check inside the table, which names settings by
// their fields: the table's entries cannot refer to the table while it is
// being built. Matrix.Check makes it an Error.
type fault struct {
	field  string
	value  any
	format string
	args   []any // a fieldRef refers to a setting
}

// fieldRef is a setting a fault's reason refers to, by its field.
type fieldRef string

func (f *fault) Error() string { return f.resolve().Error() }

// resolve is the fault as an Error, its fields' settings found in the
// table (TestTableFaultsResolve proves they are).
func (f *fault) resolve() *Error {
	args := make([]any, len(f.args))
	for i, a := range f.args {
		if r, ok := a.(fieldRef); ok {
			a = OfField(string(r))
		}
		args[i] = a
	}
	return Errorf(OfField(f.field), f.value, f.format, args...)
}
