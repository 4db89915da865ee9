// Command pulumi-gen-sdks generates the SDKs of a Pulumi package from its schema with
// Pulumi's own code generators, the ones `pulumi package gen-sdk` runs.
//
// Why this exists: `pulumi package gen-sdk` hands Python and Go to their language plugins,
// which are not available here (see ../pulumi-language-nodejs for the same obstacle), while
// the generators themselves live in github.com/pulumi/pulumi/pkg/v3/codegen, which is served.
// This program calls them directly, built against the same pins as the Pulumi CLI
// (../go.mod), so the SDKs come from the generators of the CLI release the project tests with.
//
// Usage:
//
//	pulumi-gen-sdks -schema provider/native/schema.json -out sdk [-languages nodejs,python,go]
//
// It reads the schema (JSON, a Pulumi package schema), binds it with the schema binder
// (schema.BindSpec, which validates it against the package metaschema), prints every
// diagnostic to stderr and exits 1 when there is any, error or warning. Otherwise each
// language's files are written below <out>/<language>/ (nodejs, python, go); that folder is
// emptied first, so a file the generator no longer emits does not linger. Exit 2 on bad usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
)

// tool is the name the generators write into each file's "do not edit" header.
const tool = "pulumi-gen-sdks"

// noPackages is the schema loader: the package this program generates refers to no other
// package, so any attempt to load one is an error naming that package.
type noPackages struct{}

func refuse(name string) error {
	return fmt.Errorf("the schema refers to package %q; pulumi-gen-sdks loads no other packages", name)
}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, refuse(name)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refuse(d.Name)
}

func (noPackages) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refuse(name)
}

func (noPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, refuse(d.Name)
}

// generators maps a language to the call of its code generator; each returns the SDK's
// files keyed by their path relative to the language's folder.
var generators = map[string]func(*schema.Package) (map[string][]byte, error){
	"nodejs": func(pkg *schema.Package) (map[string][]byte, error) {
		return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	},
	"python": func(pkg *schema.Package) (map[string][]byte, error) {
		return python.GeneratePackage(tool, pkg, nil, noPackages{})
	},
	"go": func(pkg *schema.Package) (map[string][]byte, error) {
		files, err := gogen.GeneratePackage(tool, pkg, nil)
		if err != nil {
			return nil, err
		}
		return files, pinPulumiSDK(files)
	},
}

// sdkModule is the module of Pulumi's Go SDK, which the generated Go SDK imports.
const sdkModule = "github.com/pulumi/pulumi/sdk/v3"

// pinPulumiSDK makes the go.mod the Go generator writes (in the schema's "pack" mode, with a
// floor of an old release) require the Go SDK at the release this program is built with, the
// one its generators come from and the project tests with. Without a go.mod it does nothing.
func pinPulumiSDK(files map[string][]byte) error {
	raw, ok := files["go.mod"]
	if !ok {
		return nil
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("no build information: cannot tell which release of " + sdkModule + " to require")
	}
	version := ""
	for _, dep := range info.Deps {
		if dep.Path == sdkModule {
			version = dep.Version
		}
	}
	if version == "" {
		return errors.New(sdkModule + " is not among this program's modules")
	}
	mod, err := modfile.Parse("go.mod", raw, nil)
	if err != nil {
		return err
	}
	if err := mod.AddRequire(sdkModule, version); err != nil {
		return err
	}
	files["go.mod"], err = mod.Format()
	return err
}

// bind reads and binds the schema at path. Every diagnostic is written to stderr; any
// diagnostic, warning included, makes it fail.
func bind(path string) (*schema.Package, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s: not a package schema: %w", path, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if len(diags) > 0 {
		writer := hcl.NewDiagnosticTextWriter(os.Stderr, nil, 0, false)
		if werr := writer.WriteDiagnostics(diags); werr != nil {
			return nil, werr
		}
	}
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		return nil, fmt.Errorf("%s: the schema binder reported %d diagnostic(s)", path, len(diags))
	}
	return pkg, nil
}

// write replaces dir with the given files.
func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run() error {
	schemaPath := flag.String("schema", "", "path of the package schema (JSON)")
	out := flag.String("out", "", "folder that receives one subfolder per language")
	languages := flag.String("languages", "nodejs,python,go", "comma-separated languages to generate")
	flag.Parse()
	if *schemaPath == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	var langs []string
	for _, lang := range strings.Split(*languages, ",") {
		if _, ok := generators[lang]; !ok {
			fmt.Fprintf(os.Stderr, "pulumi-gen-sdks: -languages: unknown language %q (nodejs, python, go)\n", lang)
			os.Exit(2)
		}
		langs = append(langs, lang)
	}
	for _, lang := range langs {
		// Each generator records its language's options on the package, so each binds anew.
		pkg, err := bind(*schemaPath)
		if err != nil {
			return err
		}
		files, err := generators[lang](pkg)
		if err != nil {
			return fmt.Errorf("%s generator: %w", lang, err)
		}
		if err := write(filepath.Join(*out, lang), files); err != nil {
			return err
		}
		fmt.Printf("%s: %d files\n", lang, len(files))
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-gen-sdks: %v\n", err)
		os.Exit(1)
	}
}
