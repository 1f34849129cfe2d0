package field_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
)

func TestError(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("plan: %w", field.Errorf("Concurrency", 0, "must be at least %d", 1))
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Concurrency" || fe.Value != "0" {
		t.Fatalf("errors.As(%v) = %+v", err, fe)
	}
	if got, want := fe.Error(), "Concurrency 0: must be at least 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := field.Errorf("Versions", nil, "none given").Error(), "Versions: none given"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
