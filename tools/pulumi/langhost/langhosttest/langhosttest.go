// Package langhosttest holds what the language hosts' tests share: writing fixture files,
// asking a host's discovery for its packages and plugins the way the engine does, and
// comparing the answer with the expected packages.
package langhosttest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"pulumiservice.local/pulumi-tools/langhost"
)

// Write creates file (a path relative to root, with its folders) holding body.
func Write(t *testing.T, root, file, body string) {
	t.Helper()
	p := filepath.Join(root, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Info is the program information of a program in dir (its root and program folder) with
// entry point ".", and options as its runtime options (nil for none).
func Info(dir string, options *structpb.Struct) *pulumirpc.ProgramInfo {
	return &pulumirpc.ProgramInfo{RootDirectory: dir, ProgramDirectory: dir, EntryPoint: ".", Options: options}
}

// Required asks a host whose discovery is discover what the program info describes needs,
// as the engine does: its packages (GetRequiredPackages) and its plugins (GetRequiredPlugins).
// The test fails on an error.
func Required(t *testing.T, discover langhost.Discover, info *pulumirpc.ProgramInfo) ([]*pulumirpc.PackageDependency, []*pulumirpc.PluginDependency) {
	t.Helper()
	base := &langhost.Base{Discover: discover}
	ctx := context.Background()
	pkgs, err := base.GetRequiredPackages(ctx, &pulumirpc.GetRequiredPackagesRequest{Info: info})
	if err == nil {
		var plugins *pulumirpc.GetRequiredPluginsResponse
		if plugins, err = base.GetRequiredPlugins(ctx, &pulumirpc.GetRequiredPluginsRequest{Info: info}); err == nil {
			return pkgs.GetPackages(), plugins.GetPlugins()
		}
	}
	t.Fatal(err)
	return nil, nil
}

// Describe renders packages as sorted "kind name version server" lines, a parameterized one
// followed by " param:<name>@<version>" (and "=<value>" when values is set).
func Describe(pkgs []*pulumirpc.PackageDependency, values bool) string {
	var lines []string
	for _, p := range pkgs {
		line := p.GetKind() + " " + p.GetName() + " " + p.GetVersion() + " " + p.GetServer()
		if pp := p.GetParameterization(); pp != nil {
			line += " param:" + pp.GetName() + "@" + pp.GetVersion()
			if values {
				line += "=" + string(pp.GetValue())
			}
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// CheckPlugins fails the test unless plugins, as sorted "kind name version server" lines, are
// the lines want (sorted), naming what was asked in the message.
func CheckPlugins(t *testing.T, what string, plugins []*pulumirpc.PluginDependency, want ...string) {
	t.Helper()
	pkgs := make([]*pulumirpc.PackageDependency, 0, len(plugins))
	for _, p := range plugins {
		pkgs = append(pkgs, &pulumirpc.PackageDependency{Kind: p.GetKind(), Name: p.GetName(), Version: p.GetVersion(), Server: p.GetServer()})
	}
	CheckPackages(t, what, pkgs, false, want...)
}

// CheckPackages fails the test unless Describe(pkgs, values) gives the lines want (sorted),
// naming what was asked in the message.
func CheckPackages(t *testing.T, what string, pkgs []*pulumirpc.PackageDependency, values bool, want ...string) {
	t.Helper()
	if got, w := Describe(pkgs, values), strings.Join(want, "\n"); got != w {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, w)
	}
}
