"""Make the website work from a folder or a USB stick, with no network.

A Jupyter Book page normally loads MathJax, RequireJS and the Jupyter widget
manager from public CDNs, and the Colab badge image from Google. This extension
serves pinned copies of the three JavaScript packages from the site's own
`_static/vendor/` folder, shows a local badge image, drops the unused live-code
(Thebe) loader, and writes the versions the book was built with into every
page's footer. Fallback CDN addresses inside the bundles (for speech output in
MathJax and custom widget packages, neither used here) are pointed at a local
path, so the site never contacts a CDN.

The packages come from the npm registry as tarballs, checked against their
published sha512 integrity, and are cached in ~/.cache/gradient-mechanics/npm.
Sources and licences (asset: npm package, licence):

- MathJax 3 (`tex-mml-chtml.js` and its woff-v2 fonts): mathjax 3.2.2,
  Apache-2.0
- RequireJS (`require.js`): requirejs 2.3.8, MIT
- Jupyter widget manager (`embed-amd.js`, icon fonts):
  @jupyter-widgets/html-manager 1.0.15, BSD-3-Clause
- reveal.js, for the lecture slides (`make slides`): reveal.js 4.6.1, MIT
"""

import base64
import datetime
import fnmatch
import hashlib
import io
import os
import re
import tarfile
import urllib.request
from importlib.metadata import version
from pathlib import Path

from docutils import nodes

REGISTRY = "https://registry.npmjs.org"
CACHE = (
    Path(
        os.environ.get(
            "CACHE_DIR", Path.home() / ".cache" / "gradient-mechanics"
        )
    )
    / "npm"
)
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
LOCAL_BADGE = "/book/images/open-in-colab.svg"

INERT = b"./offline-unavailable/"
CDN_PREFIXES = (b"https://cdn.jsdelivr.net/", b"https://fonts.googleapis.com/")

# Pinned npm packages: version and the sha512 integrity the registry publishes
# for the tarball.
PACKAGES = {
    "mathjax": (
        "3.2.2",
        "Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
    ),
    "requirejs": (
        "2.3.8",
        "7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
    ),
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        "5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
    ),
    "reveal.js": (
        "4.6.1",
        "1CW0auaXNPmwmvQ7TwpszwVxMi2Xr5cTS3J3EBC/HHgbPF32Dn7aiu/LKWDOGjMbaDwKQiGmfqcoGQ74HUHCMw==",
    ),
}


def layout(vendor, widget_pages):
    """{package: {file pattern in the package: folder of the output}} for pages
    that load from `vendor`.

    The widget manager loads its icon fonts from
    "@jupyter-widgets/html-manager/dist/" next to the page that shows a widget,
    so those go beside the pages (`widget_pages`).
    """
    return {
        "mathjax": {
            "es5/tex-mml-chtml.js": f"{vendor}/mathjax",
            "es5/output/chtml/fonts/woff-v2/*": (
                f"{vendor}/mathjax/output/chtml/fonts/woff-v2"
            ),
        },
        "requirejs": {"require.js": vendor},
        "@jupyter-widgets/html-manager": {
            "dist/embed-amd.js": vendor,
            "dist/*.woff*": (
                f"{widget_pages}/@jupyter-widgets/html-manager/dist"
            ),
        },
    }


SITE_LAYOUT = layout(
    "_static/vendor", "notebooks"
)  # every page with a widget is a chapter in notebooks/
SLIDES_LAYOUT = {
    **layout("vendor", "."),
    "reveal.js": {
        "dist/*": "vendor/reveal.js/dist",
        "plugin/notes/*": "vendor/reveal.js/plugin/notes",
    },
}


def tarball(package):
    """The package's tarball from the cache, or from the registry when missing;
    integrity checked."""
    release, integrity = PACKAGES[package]
    name = package.split("/")[-1]
    path = CACHE / f"{name}-{release}.tgz"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(
            f"{REGISTRY}/{package}/-/{name}-{release}.tgz", timeout=120
        ) as response:
            path.with_suffix(".part").write_bytes(response.read())
        path.with_suffix(".part").rename(path)
    data = path.read_bytes()
    if base64.b64encode(hashlib.sha512(data).digest()).decode() != integrity:
        path.unlink()
        raise RuntimeError(
            f"{package} {release}: the downloaded tarball does not match "
            "its sha512 integrity"
        )
    return data


def vendor(files_by_package, outdir):
    """Extract the files named by `files_by_package` (see `layout`) below
    `outdir`."""
    for package, files in files_by_package.items():
        with tarfile.open(
            fileobj=io.BytesIO(tarball(package)), mode="r:gz"
        ) as archive:
            for member in archive.getmembers():
                inner = member.name.removeprefix("package/")
                match = next(
                    (
                        (p, f)
                        for p, f in files.items()
                        if fnmatch.fnmatch(inner, p)
                    ),
                    None,
                )
                if not member.isfile() or match is None:
                    continue
                pattern, folder = match
                below = inner[
                    pattern.split("*")[0].rfind("/") + 1 :
                ]  # path below the pattern's folder
                destination = Path(outdir) / folder / below
                destination.parent.mkdir(parents=True, exist_ok=True)
                content = archive.extractfile(member).read()
                if destination.suffix == ".js":
                    for prefix in CDN_PREFIXES:
                        content = content.replace(prefix, INERT)
                destination.write_bytes(content)


def copy_vendored_assets(app, exception):
    if exception is None and app.builder.format == "html":
        vendor(SITE_LAYOUT, app.outdir)


def use_local_badge(app, doctree):
    for image in doctree.findall(nodes.image):
        if image["uri"] == COLAB_BADGE:
            image["uri"] = LOCAL_BADGE


FIGURE_TITLE = re.compile(r"""(?:suptitle\(|title=)\s*f?(["'])(.+?)\1""")


def describe_figures(app, doctree):
    """Give each notebook figure an alt text: the titles set by the code that
    drew it."""
    for image in doctree.findall(nodes.image):
        if image.get("alt") or image["uri"] == LOCAL_BADGE:
            continue
        cell = image.parent
        while cell is not None and "cell" not in cell.get("classes", []):
            cell = cell.parent
        code = (
            next(cell.findall(nodes.literal_block)).astext()
            if cell is not None
            else ""
        )
        titles = [
            title for _, title in FIGURE_TITLE.findall(code) if "{" not in title
        ]
        image["alt"] = (
            ("Figure: " + "; ".join(titles))
            if titles
            else "Figure drawn by the code cell above"
        )


def drop_live_code_loader(app, pagename, templatename, context, doctree):
    """Thebe (live code on the page) is not enabled; its loader would still name
    a CDN."""
    context["script_files"] = [
        script
        for script in context.get("script_files", [])
        if "thebe" not in str(getattr(script, "filename", script) or "")
        and "THEBE"
        not in str(getattr(script, "attributes", {}).get("body", ""))
    ]
    context["css_files"] = [
        css
        for css in context.get("css_files", [])
        if "thebe" not in str(getattr(css, "filename", css))
    ]


def fix_citation_roles(app, pagename, templatename, context, doctree):
    """Docutils marks citations `doc-biblioentry` inside a `list`; assistive
    technology expects `listitem`."""
    if "body" in context:
        context["body"] = context["body"].replace(
            'role="doc-biblioentry"', 'role="listitem"'
        )


def mark_going_deeper(app, doctree):
    """Give sections whose title starts with "Going deeper" (after a section
    number) a class, so that the stylesheet sets the optional material
    apart."""
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title and re.match(r"[\d.]*\s*Going deeper", title.astext()):
            section["classes"].append("going-deeper")


FORM_TITLE = re.compile(r"#\s*@title\s+(.*?)\s*(\{[^}]*\})?\s*$")


def label_folds(app, doctree):
    """Put on each fold bar what the fold holds: a hidden cell's Colab form
    title ("Check: ...", "Figure: ...", "Solution 4.1"), and "Show the answer"
    on the folded output that answers a prediction."""
    for cell in doctree.findall(nodes.container):
        mode = cell.get("hide_mode")
        if cell.get("nb_element") != "cell_code" or not mode:
            continue
        if mode == "output":
            cell["prompt_show"], cell["prompt_hide"] = (
                "Show the answer",
                "Hide the answer",
            )
            continue
        source = cell.next_node(nodes.literal_block)
        first = source.astext().split("\n", 1)[0] if source else ""
        title = FORM_TITLE.match(first)
        if title:
            cell["prompt_show"] = cell["prompt_hide"] = title.group(1)


def configure(app, config):
    config.mathjax_path = "vendor/mathjax/tex-mml-chtml.js"
    config.html_static_path.append(str(Path(__file__).parent / "static"))
    config.html_context.setdefault("default_mode", "auto")
    config.nb_ipywidgets_js = {
        "vendor/require.js": {},
        "vendor/embed-amd.js": {},
    }
    built = datetime.date.today().isoformat()
    config.html_theme_options["extra_footer"] = (
        f"<p>Last verified with torch {version('torch')}, "
        f"ipywidgets {version('ipywidgets')} "
        f"and matplotlib {version('matplotlib')} on {built}.</p>"
    )


def setup(app):
    app.connect("config-inited", configure, priority=900)
    app.connect(
        "doctree-read", use_local_badge, priority=100
    )  # before Sphinx collects images
    app.connect("doctree-read", describe_figures)
    app.connect("doctree-read", mark_going_deeper)
    app.connect("doctree-read", label_folds)
    app.add_css_file("book.css")
    app.connect("html-page-context", drop_live_code_loader)
    app.connect("html-page-context", fix_citation_roles)
    app.add_js_file(
        "mathjax2-queue.js", priority=100
    )  # before MathJax and the widget manager
    app.add_js_file("widget-a11y.js")
    app.connect("build-finished", copy_vendored_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
