// Command pulumi-gen-examples turns example programs written once in PCL (Pulumi's program
// language, the one `pulumi convert` goes through) into TypeScript, Python and Go with Pulumi's
// own program generators (pkg/v3/codegen/{nodejs,python,go} GenerateProgram), for the docs
// (scripts/gen-examples.js puts them into docs/resources.md).
//
// Usage:
//
//	pulumi-gen-examples -schema provider/native/schema.json -nodejs-package pulumi-service/native EXAMPLE.pp...
//
// The schema is bound with schema.BindSpec and is the one package the programs may use (any
// other is an error naming it). -nodejs-package replaces the schema's Node.js package name in
// the imports the TypeScript generator writes (the Node.js SDK ships inside the package
// pulumi-service, as pulumi-service/native). Prints a JSON object on stdout: example name (the
// file name without .pp) to {"typescript", "python", "go"} sources. Every diagnostic of the
// binder or a generator, warnings included, fails the run (exit 1): it is printed to stderr, with
// the generator's output when there is one (the Go generator reports code gofmt cannot parse
// as a warning). Exit 2 on bad usage.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// onePackage is the schema loader of the binder: it serves the bound package and refuses others.
type onePackage struct{ pkg *schema.Package }

func (l onePackage) get(name string) (*schema.Package, error) {
	if name != l.pkg.Name {
		return nil, fmt.Errorf("the example uses package %q; only %q is available", name, l.pkg.Name)
	}
	return l.pkg, nil
}

func (l onePackage) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return l.get(name)
}

func (l onePackage) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.get(d.Name)
}

func (l onePackage) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	p, err := l.get(name)
	if err != nil {
		return nil, err
	}
	return p.Reference(), nil
}

func (l onePackage) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

type generator func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error)

// languages maps the docs' language names to their generators and the file each writes.
var languages = []struct {
	name, file string
	gen        generator
}{
	{"typescript", "index.ts", nodejs.GenerateProgram},
	{"python", "__main__.py", python.GenerateProgram},
	{"go", "main.go", gogen.GenerateProgram},
}

// loadSchema reads and binds the schema at path, its Node.js package name replaced by
// nodejsPackage when that is not empty. Errors: unreadable or invalid JSON, binder errors.
func loadSchema(path, nodejsPackage string) (*schema.Package, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if nodejsPackage != "" {
		var nodejsInfo map[string]interface{}
		if err := json.Unmarshal(spec.Language["nodejs"], &nodejsInfo); err != nil {
			return nil, fmt.Errorf("%s: language.nodejs: %w", path, err)
		}
		nodejsInfo["packageName"] = nodejsPackage
		if spec.Language["nodejs"], err = json.Marshal(nodejsInfo); err != nil {
			return nil, err
		}
	}
	pkg, diags, err := schema.BindSpec(spec, schema.NewNullLoader(), schema.ValidationOptions{})
	if err == nil && diags.HasErrors() {
		err = diags
	}
	return pkg, err
}

// generate binds one PCL file and runs each language's generator on it.
func generate(file string, pkg *schema.Package) (map[string]string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	parser := syntax.NewParser()
	if err := parser.ParseFile(strings.NewReader(string(src)), filepath.Base(file)); err != nil {
		return nil, err
	}
	if parser.Diagnostics.HasErrors() {
		return nil, parser.Diagnostics
	}
	program, diags, err := pcl.BindProgram(parser.Files, onePackage{pkg})
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		return nil, diags
	}
	out := map[string]string{}
	for _, l := range languages {
		files, diags, err := l.gen(program)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		if len(diags) > 0 {
			return nil, fmt.Errorf("%s: %w\n%s", l.name, diags, files[l.file])
		}
		out[l.name] = string(files[l.file])
	}
	return out, nil
}

func main() {
	schemaPath := flag.String("schema", "", "the package schema (JSON)")
	nodejsPackage := flag.String("nodejs-package", "", "Node.js package name to import the SDK from")
	flag.Parse()
	if *schemaPath == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pulumi-gen-examples -schema FILE [-nodejs-package NAME] EXAMPLE.pp...")
		os.Exit(2)
	}
	pkg, err := loadSchema(*schemaPath, *nodejsPackage)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-gen-examples: %v\n", err)
		os.Exit(1)
	}
	result := map[string]map[string]string{}
	for _, file := range flag.Args() {
		out, err := generate(file, pkg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pulumi-gen-examples: %s: %v\n", file, err)
			os.Exit(1)
		}
		result[strings.TrimSuffix(filepath.Base(file), ".pp")] = out
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-gen-examples: %v\n", err)
		os.Exit(1)
	}
}
