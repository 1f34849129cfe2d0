package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// isKubernetes reports whether a package is one of Kubernetes' own
// (k8s.io/...) or of its project's (sigs.k8s.io/...).
func isKubernetes(path string) bool {
	return strings.HasPrefix(path, "k8s.io/") || strings.HasPrefix(path, "sigs.k8s.io/")
}

// TestBinaryLinksNoKubernetes: the binary writes its Kubernetes Job from
// types of its own; the API's packages (dozens, and large) are for the
// tests that check that Job, never linked into the binary.
func TestBinaryLinksNoKubernetes(t *testing.T) {
	t.Parallel()
	p, ok := list(t)["cmd/tlsbench"]
	if !ok {
		t.Fatal("package cmd/tlsbench not found")
	}
	for _, d := range p.deps {
		if isKubernetes(d) {
			t.Errorf("cmd/tlsbench depends on %s: the binary must not link Kubernetes' packages (kubejob writes the Job itself)", d)
		}
	}
}

// TestKubernetesDetected shows the check above can fail: kubejob's tests
// do use the API's types, and the same test finds them.
func TestKubernetesDetected(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages' imports: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "-test", module+"kubejob").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !slices.ContainsFunc(strings.Fields(string(out)), isKubernetes) {
		t.Error("kubejob's tests list no Kubernetes package: the check would see none in the binary either")
	}
}
