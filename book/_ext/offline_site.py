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

- MathJax 3 (`tex-chtml.js` and its woff-v2 fonts): mathjax 3.2.2,
  Apache-2.0
- RequireJS (`require.js`): requirejs 2.3.8, MIT
- Jupyter widget manager (`embed-amd.js`, icon fonts):
  @jupyter-widgets/html-manager 1.0.15, BSD-3-Clause
- reveal.js, for the lecture slides (`make slides`): reveal.js 4.6.1, MIT
"""

import base64
import datetime
import fnmatch
import gzip
import hashlib
import io
import json
import os
import re
import struct
import tarfile
import urllib.request
from html import escape
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


MATHJAX = "tex-chtml.js"  # the slides' MathJax, in one file
# The website's MathJax, in parts: TeX input, HTML output and its font, and
# the hidden MathML that screen readers read; not the 430 kB context menu.
MATHJAX_PARTS = ["input/tex", "output/chtml", "a11y/assistive-mml"]
SITE_MATHJAX = {
    f"es5/{part}": f"_static/vendor/mathjax/{part.rpartition('/')[0]}".rstrip(
        "/"
    )
    for part in [
        "startup.js",
        "core.js",
        "input/tex.js",
        "input/tex/extensions/*",
        "output/chtml.js",
        "output/chtml/fonts/tex.js",
        "output/chtml/fonts/woff-v2/*",
        "a11y/assistive-mml.js",
    ]
}


def mathjax(vendor):
    return {
        f"es5/{MATHJAX}": f"{vendor}/mathjax",
        "es5/output/chtml/fonts/woff-v2/*": (
            f"{vendor}/mathjax/output/chtml/fonts/woff-v2"
        ),
    }


# The website draws its Try-it figures with try-it.js; only the slides load
# the Jupyter widget manager (it loads its icon fonts from
# "@jupyter-widgets/html-manager/dist/" beside the page).
SITE_LAYOUT = {"mathjax": SITE_MATHJAX}
SLIDES_LAYOUT = {
    "mathjax": mathjax("vendor"),
    "requirejs": {"require.js": "vendor"},
    "@jupyter-widgets/html-manager": {
        "dist/embed-amd.js": "vendor",
        "dist/*.woff*": "@jupyter-widgets/html-manager/dist",
    },
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


def finish_site(app, exception):
    if exception is None and app.builder.format == "html":
        translate_captions(app)
        vendor(SITE_LAYOUT, app.outdir)
        lighten_pages(app.outdir)
        trim_styles(app.outdir)
        precompress(app.outdir)


def translate_captions(app):
    """The table of contents' part captions come from _toc.yml, which Sphinx
    does not translate; the Chinese edition takes them from the catalog of
    the page that holds the table of contents."""
    from edition import LANGUAGE, translations

    if app.config.language != LANGUAGE:
        return
    root = app.config.root_doc
    table = translations(root)
    for page in Path(app.outdir).rglob("*.html"):
        html = page.read_text()
        new = re.sub(
            r'(<span class="caption-text">)([^<]+)(</span>)',
            lambda m: (
                m.group(1) + table.get(m.group(2), m.group(2)) + m.group(3)
            ),
            html,
        )
        if new != html:
            page.write_text(new)


def use_local_badge(app, doctree):
    for image in doctree.findall(nodes.image):
        if image["uri"] == COLAB_BADGE:
            image["uri"] = LOCAL_BADGE


COLAB_NOTEBOOK = re.compile(r"/blob/[^/]+/notebooks/([^/]+\.ipynb)$")


def chinese_notebook_url(app, url):
    """On the Chinese site, a Colab link to a chapter opens its Chinese
    notebook (notebooks/zh/, made by edition.py) where there is one."""
    match = COLAB_NOTEBOOK.search(url)
    if app.config.language != "zh_CN" or not match:
        return url
    if not (Path(app.srcdir) / "notebooks" / "zh" / match[1]).exists():
        return url
    return url.replace(f"/notebooks/{match[1]}", f"/notebooks/zh/{match[1]}")


def link_chinese_notebooks(app, doctree):
    """The page's own Colab badge."""
    for reference in doctree.findall(nodes.reference):
        if "refuri" in reference:
            reference["refuri"] = chinese_notebook_url(app, reference["refuri"])


def link_chinese_launch_button(app, pagename, templatename, context, doctree):
    """The theme's Colab launch button in the page header."""

    def relink(item):
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "url" and isinstance(value, str):
                    item[key] = chinese_notebook_url(app, value)
                else:
                    relink(value)
        elif isinstance(item, list):
            for value in item:
                relink(value)

    relink(context.get("header_buttons", []))


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


# The website's own words, in each edition's language.
LABELS = {
    "en": {
        "answer": ("Show the answer", "Hide the answer"),
        "optional": (
            "Read this optional section (about {minutes} min)",
            "Fold this optional section away",
        ),
        "cells": ("Show the {count} cells: {kinds}", "Hide the {count} cells"),
    },
    "zh_CN": {
        "answer": ("显示答案", "隐藏答案"),
        "optional": (
            "阅读这一选读小节（约 {minutes} 分钟）",
            "收起这一选读小节",
        ),
        "cells": (
            "显示这 {count} 个单元格：{kinds}",
            "隐藏这 {count} 个单元格",
        ),
    },
}


def labels(app, kind, **values):
    show, hide = LABELS.get(app.config.language, LABELS["en"])[kind]
    return show.format(**values), hide.format(**values)


class fold(nodes.General, nodes.Element):
    """Content closed until a reader opens it: `show` and `hide` are the
    labels of its bar, `kind` its class."""


def visit_fold(self, node):
    self.body.append(
        f'<details class="{node["kind"]}"><summary>'
        f'<span class="collapsed">{escape(node["show"])}</span>'
        f'<span class="expanded">{escape(node["hide"])}</span></summary>\n'
    )


def depart_fold(self, node):
    self.body.append("</details>\n")


def mark_going_deeper(app, doctree):
    """Give sections whose title starts with "Going deeper" (after a section
    number; "深入一步" in the Chinese edition) a class, so that the stylesheet
    sets the optional material apart; on a notebook's page, the body of each
    outermost one (after its "*Optional:*" paragraph) folds away, titled with
    its reading time."""
    import nbformat
    from lecture_material import DEEPER, deeper_minutes, section_title

    path = str(app.env.doc2path(app.env.docname))
    minutes = []  # of the outermost optional sections, in page order
    if path.endswith(".ipynb"):
        minutes = list(
            deeper_minutes(nbformat.read(path, as_version=4)).values()
        )
    for section in list(doctree.findall(nodes.section)):
        title = section.next_node(nodes.title)
        if not (title and section_title(title.astext()).startswith(DEEPER)):
            continue
        nested, parent = False, section.parent
        while parent is not None and not nested:
            nested = isinstance(parent, nodes.section) and (
                "going-deeper" in parent["classes"]
            )
            parent = parent.parent
        section["classes"].append("going-deeper")
        if nested or not minutes:
            continue  # nested in another optional section: folded with it
        reading = minutes.pop(0)
        body = section.children[2:]  # after the title and "*Optional:*"
        if not body:
            continue
        show, hide = labels(app, "optional", minutes=max(1, round(reading)))
        folded = fold(kind="going-deeper-fold", show=show, hide=hide)
        for child in body:
            section.remove(child)
        folded.extend(body)
        section.append(folded)


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
            cell["prompt_show"], cell["prompt_hide"] = labels(app, "answer")
            continue
        source = cell.next_node(nodes.literal_block)
        lines = source.astext().split("\n", 2) if source else [""]
        # a cell magic (%%writefile) comes first, its title on the next line
        first = (
            lines[1] if lines[0].startswith("%%") and lines[1:] else lines[0]
        )
        title = FORM_TITLE.match(first)
        if title:
            cell["prompt_show"] = cell["prompt_hide"] = title.group(1)


def is_bar(cell):
    """A code cell the page shows as a fold bar and nothing else."""
    return (
        isinstance(cell, nodes.container)
        and cell.get("nb_element") == "cell_code"
        and (
            cell.get("hide_mode") == "all"
            or (
                cell.get("hide_mode") == "input"
                and not any(
                    child.get("nb_element") == "cell_code_output"
                    for child in cell.children
                )
            )
        )
    )


def group_kinds(cells):
    """'Script (7), The launcher (2)' from the cells' titles."""
    kinds = {}
    for cell in cells:
        kind = re.split(r"[:,]", cell.get("prompt_show", "code"))[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(
        kind + (f" ({count})" if count > 1 else "")
        for kind, count in kinds.items()
    )


GROUPED_RUN = 3  # this many fold bars in a row fold into one


def group_folds(app, doctree):
    """Three or more fold bars in a row become one bar that lists them, so
    that the reading path does not turn into a ladder of bars."""
    for parent in list(doctree.findall(nodes.Element)):
        run = []
        for child in [*parent.children, None]:
            if child is not None and is_bar(child):
                run.append(child)
                continue
            if len(run) >= GROUPED_RUN:
                show, hide = labels(
                    app, "cells", count=len(run), kinds=group_kinds(run)
                )
                group = fold(kind="cell-group", show=show, hide=hide)
                parent.insert(parent.index(run[0]), group)
                for cell in run:
                    parent.remove(cell)
                group.extend(run)
            run = []


PREDICTION = "**Predict first:**"
ANSWER = "answer-explanation"


def fold_answer_prose(app, docname, source):
    """On the website, the paragraphs that explain a prediction's answer fold
    with the output that answers it, so a reader who scrolls on does not read
    the number before making the guess. They are the paragraphs after the
    answering cell, up to the next heading or prediction (the ones the
    handout removes); here they are marked for `move_answer_prose`."""
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    nb = json.loads(source[0])
    prompt, answering = False, False
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code":
            answering, prompt = prompt, False
            continue
        if answering:
            paragraphs = re.split(r"\n\s*\n", text.strip())
            count = next(
                (
                    i
                    for i, p in enumerate(paragraphs)
                    if p.startswith(("#", PREDICTION))
                ),
                len(paragraphs),
            )
            if count:
                text = "\n\n".join(
                    [
                        f":::{{container}} {ANSWER}",
                        *paragraphs[:count],
                        ":::",
                        *paragraphs[count:],
                    ]
                )
                cell["source"] = text
            answering = False
        prompt = PREDICTION in text
    source[0] = json.dumps(nb)


def move_answer_prose(app, doctree):
    """Move each answer's paragraphs into the fold of the output before it."""
    for prose in list(doctree.findall(nodes.container)):
        if ANSWER not in prose.get("classes", []):
            continue
        cell = prose.previous_sibling()
        outputs = (
            [
                child
                for child in cell.children
                if child.get("nb_element") == "cell_code_output"
            ]
            if isinstance(cell, nodes.container)
            and cell.get("hide_mode") == "output"
            else []
        )
        if outputs:
            prose.parent.remove(prose)
            outputs[-1].append(prose)


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">'
    r"(.*?)</script>",
    re.S,
)
FRAMES = "_images/try-it"


def precomputed_frames(models, view_id):
    """The controls and frames of one Try-it widget (the notebook's
    `precomputed`), read from the saved widget state: a VBox of controls and
    nested Tabs, each Tab linked to the control that picks its child, the
    innermost children Output widgets holding a frame."""

    def model(reference):
        return models[reference.removeprefix("IPY_MODEL_")]

    def is_frames(m):
        return "precomputed-frames" in m["state"].get("_dom_classes", [])

    chosen_by = {
        link["state"]["target"][0].removeprefix("IPY_MODEL_"): model(
            link["state"]["source"][0]
        )
        for link in models.values()
        if link["model_name"] == "LinkModel"
    }
    root = next(
        child.removeprefix("IPY_MODEL_")
        for child in models[view_id]["state"]["children"]
        if is_frames(model(child))
    )
    controls, key = [], root
    while is_frames(models[key]):
        control = chosen_by[key]
        controls.append(
            {
                "label": control["state"]["description"],
                "options": control["state"]["_options_labels"],
                "index": control["state"]["index"],
                "kind": "slider"
                if control["model_name"] == "SelectionSliderModel"
                else "buttons",
            }
        )
        key = models[key]["state"]["children"][0].removeprefix("IPY_MODEL_")

    def leaves(key, indices):
        if not is_frames(models[key]):
            yield indices, models[key]["state"]["outputs"]
            return
        for index, child in enumerate(models[key]["state"]["children"]):
            yield from leaves(
                child.removeprefix("IPY_MODEL_"), (*indices, index)
            )

    return controls, dict(leaves(root, ()))


def frame_file(outdir, png):
    """Write one frame's PNG below `outdir`/_images/try-it/, named by its
    content; return its path there and its size in pixels."""
    data = base64.b64decode("".join(png.split()))
    name = f"{FRAMES}/{hashlib.sha256(data).hexdigest()[:16]}.png"
    path = Path(outdir) / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    width, height = struct.unpack(">II", data[16:24])
    return name, width, height


def edition_links(app, pagename, templatename, context, doctree):
    """Link each page to its counterpart in the other language: a Chinese page
    to its English original; an English page to its Chinese edition once
    every message of the page is translated (book/_ext/edition.py)."""
    if "body" not in context:
        return
    from edition import LANGUAGE, complete

    up = "../" * pagename.count("/")
    if app.config.language == LANGUAGE:
        href, lang, label = f"../{up}{pagename}.html", "en", "English"
    elif complete(pagename):
        href, lang, label = f"{up}zh/{pagename}.html", "zh-CN", "中文"
    else:
        return
    context["metatags"] = (
        context.get("metatags", "")
        + f'<link rel="alternate" hreflang="{lang}" href="{href}">'
    )
    context["body"] = (
        f'<p class="edition-switch"><a href="{href}" hreflang="{lang}" '
        f'lang="{lang}">{label}</a></p>' + context["body"]
    )


def try_it_frames(app, pagename, templatename, context, doctree):
    """On a page with saved widgets, replace the Jupyter widget manager (3.5 MB
    of script, loaded before the page paints) by try-it.js: each widget
    becomes a small JSON description of its controls and frames, and each
    frame an image file that loads when a reader picks it."""
    scripts = context.get("script_files", [])
    states = [
        script
        for script in scripts
        if getattr(script, "attributes", {}).get("type") == WIDGET_STATE
    ]
    if not states:
        return
    context["script_files"] = [s for s in scripts if s not in states]
    models = json.loads(states[0].attributes["body"])["state"]
    pathto = context["pathto"]

    def description(match):
        view_id = json.loads(match.group(1))["model_id"]
        controls, leaves = precomputed_frames(models, view_id)
        frames = {}
        for indices, outputs in leaves.items():
            frame = {"text": ""}
            for output in outputs:
                if output["output_type"] == "stream":
                    frame["text"] += output["text"]
                elif "image/png" in output.get("data", {}):
                    name, width, height = frame_file(
                        app.outdir, output["data"]["image/png"]
                    )
                    frame.update(
                        src=pathto(name, 1), width=width, height=height
                    )
            frames[",".join(map(str, indices))] = frame
        data = json.dumps({"controls": controls, "frames": frames})
        data = data.replace("</", "<\\/")  # stays inside its <script>
        return (
            '<script type="application/json" class="try-it-data">'
            f"{data}</script>"
        )

    body, drawn = WIDGET_VIEW.subn(description, context["body"])
    if drawn:
        body += (
            f'<script defer src="{pathto("_static/try-it.js", 1)}"></script>'
        )
    context["body"] = body


FONTAWESOME_JS = re.compile(
    r'\s*<script defer src="[^"]*/fontawesome\.js[^"]*"></script>'
)
# a script in <head> that would stop the page until it has run
BLOCKING_SCRIPT = re.compile(
    r'<script (?![^>]*\b(?:defer|async|type=)\b)([^>]*\bsrc="[^"]+"[^>]*)>'
)
# Sphinx's search tools: the theme loads them on every page for a search as
# you type that this book leaves off; the search page loads its own
SEARCH_TOOLS = re.compile(
    r'\s*<script (?:defer )?src="[^"]*/'
    r'(?:searchtools|language_data|searchindex)\.js"></script>'
)
# sphinx-design's stylesheet and script, on pages that use none of it
DESIGN = re.compile(
    r"\s*<(?:link [^>]*sphinx-design[^>]*/>|script [^>]*design-tabs\.js[^>]*>"
    r"</script>)"
)
# scripts nothing needs before the reader reads: formulas are typeset, and
# the search index read, once the page has loaded
AFTER_LOAD = re.compile(
    r'\s*<script defer(?:="defer")? src="([^"]*(?:/mathjax/[^"/]+\.js'
    r'|/searchtools\.js|/language_data\.js|/searchindex\.js))"></script>'
)
LOAD_LATER = (
    "<script>addEventListener('load', function () {{ {0}.forEach("
    "function (src) {{ var s = document.createElement('script'); "
    "s.src = src; s.async = false; document.head.appendChild(s); }}); }});"
    "</script>\n"
)
OUTPUT_FIGURE = re.compile(
    r'(<div class="cell_output docutils container">\s*)'
    r'<img alt="([^"]*)" src="([^"]+\.png)" />'
)
COMPRESSED = (".html", ".js", ".css", ".svg", ".json", ".txt", ".ttf")


PLAIN_TOKEN = r'<span class="(?:{})">([^<]*)</span>'


def plain_token_classes(outdir):
    """Classes of highlighted code whose only style, in light and dark mode
    alike, is the code block's own colour (names, punctuation, spaces): their
    <span>s change nothing on screen and are a third of a chapter's HTML."""
    css = (Path(outdir) / "_static" / "pygments.css").read_text()
    plain = None
    for theme in ("light", "dark"):
        prefix = rf'html\[data-theme="{theme}"\] \.highlight'
        base = re.search(
            prefix + r" \{ background: [^;]+; color: ([^ ]+) \}", css
        )
        same = {
            name
            for name, color in re.findall(
                prefix + r" \.([a-z0-9]+) \{ color: ([^ ]+) \}", css
            )
            if base and color == base.group(1)
        }
        plain = same if plain is None else plain & same
    return re.compile(PLAIN_TOKEN.format("|".join(sorted(plain or {"-"}))))


def lighten_pages(outdir):
    """What a page loads before it paints: the theme's icon script goes (its
    stylesheet already draws the same icons from a web font, 1.5 MB less),
    highlighted code drops the <span>s that style nothing, the scripts in
    <head> load deferred (in the same order, after the page
    is parsed), MathJax and the search index once the page has loaded (the
    formulas are typeset a moment after the text shows), and the figures of
    the page load when they come near the screen (their size known
    beforehand, so nothing moves) and open full size when clicked."""
    plain = plain_token_classes(outdir)
    for page in Path(outdir).rglob("*.html"):
        head, sep, body = page.read_text().partition("</head>")
        body = plain.sub(r"\1", body)
        head = FONTAWESOME_JS.sub("", head)
        if page.name != "search.html":
            head = SEARCH_TOOLS.sub("", head)
        if 'class="sd-' not in body:
            head = DESIGN.sub("", head)
        head = BLOCKING_SCRIPT.sub(r"<script defer \1>", head)
        later = AFTER_LOAD.findall(head)
        if later:
            head = AFTER_LOAD.sub("", head) + LOAD_LATER.format(
                json.dumps(later)
            )

        def linked(match, page=page):
            before, alt, src = match.groups()
            data = (page.parent / src).read_bytes()
            width, height = struct.unpack(">II", data[16:24])
            return (
                f'{before}<a class="figure-full" href="{src}" '
                f'title="Open the figure full size"><img loading="lazy" '
                f'alt="{alt}" src="{src}" width="{width}" height="{height}" '
                "/></a>"
            )

        page.write_text(head + sep + OUTPUT_FIGURE.sub(linked, body))
    for leftover in Path(outdir).glob("_static/scripts/fontawesome.js*"):
        leftover.unlink()


WORD = re.compile(r"[A-Za-z0-9_-]+")
COMMENT = re.compile(r"/\*.*?\*/", re.S)
LICENCE = re.compile(r"/\*!.*?\*/", re.S)  # kept
CLASS = re.compile(r"\.([A-Za-z0-9_-]+)")
# :not(.x), :is(.x, .y): a class named there does not decide whether the
# selector can match, so only the classes outside parentheses count
PARENTHESES = re.compile(r"\([^()]*\)")
TOP_LEVEL_COMMA = re.compile(r",(?![^()]*\))")  # not one inside :not(a, b)
GLYPH = re.compile(r"\\([ef][0-9a-f]{3})\b|([\ue000-\uf8ff])")
ICON_FONT = re.compile(
    r'src:url\(([^)]*/webfonts/[^)/]+)\.woff2\) format\("woff2"\),'
    r'url\(\1\.ttf\) format\("truetype"\)'
)


def outside_parentheses(selector):
    while PARENTHESES.search(selector):
        selector = PARENTHESES.sub("", selector)
    return selector


def unused_rules_removed(css, words):
    """`css` without the rules whose selectors all name a class that appears
    in no page and no script (`words`), inside @media blocks too."""
    out, i = [], 0
    while (brace := css.find("{", i)) >= 0:
        depth, end = 1, brace + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        selector, body = css[i:brace], css[brace + 1 : end - 1]
        if selector.lstrip().startswith(("@media", "@supports", "@layer")):
            inner = unused_rules_removed(body, words)
            if inner.strip():
                out.append(f"{selector}{{{inner}}}")
        elif selector.lstrip().startswith("@"):
            out.append(css[i:end])
        else:
            kept = [
                one
                for one in TOP_LEVEL_COMMA.split(selector)
                if set(CLASS.findall(outside_parentheses(one))) <= words
            ]
            if kept:
                out.append(f"{','.join(kept)}{{{body}}}")
        i = end
    return "".join(out) + css[i:]


def trim_styles(outdir):
    """The theme's stylesheets carry Bootstrap whole and a rule for each of
    Font Awesome's 1,900 icons; the site uses a fraction. Keep the rules whose
    classes some page or script names (two thirds of 0.4 MB go), then cut the
    icon fonts down to the glyphs the remaining rules draw (276 kB of fonts
    become a few kB)."""
    from fontTools import subset

    outdir = Path(outdir)
    words = set()
    for path in [*outdir.rglob("*.html"), *outdir.glob("_static/**/*.js")]:
        words |= set(WORD.findall(path.read_text(errors="replace")))
    styles = [
        *outdir.glob("_static/*.css"),
        *outdir.glob("_static/styles/*.css"),
    ]
    glyphs = set()
    for css in styles:
        text = css.read_text()
        licences = "".join(f"{c}\n" for c in LICENCE.findall(text))
        text = licences + unused_rules_removed(COMMENT.sub("", text), words)
        css.write_text(text)
        glyphs |= {
            int(escape, 16) if escape else ord(char)
            for escape, char in GLYPH.findall(text)
        }
    for css in styles:
        text = css.read_text()
        for font in set(ICON_FONT.findall(text)):
            source = css.parent / f"{font}.ttf"
            options = subset.Options()
            options.flavor = "woff"
            subsetter = subset.Subsetter(options)
            face = subset.load_font(str(source), options)
            subsetter.populate(unicodes=glyphs)
            subsetter.subset(face)
            subset.save_font(face, str(source.with_suffix(".woff")), options)
            source.unlink()
            source.with_suffix(".woff2").unlink()
        css.write_text(ICON_FONT.sub(r'src:url(\1.woff) format("woff")', text))


def precompress(outdir, smallest=10_000):
    """A gzip copy beside each large text asset (`page.html.gz`), for hosts
    that serve precompressed files; byte-for-byte the same on every build."""
    for stale in Path(outdir).rglob("*.gz"):
        if not stale.with_suffix("").exists():
            stale.unlink()
    for path in Path(outdir).rglob("*"):
        if (
            path.suffix in COMPRESSED
            and path.is_file()
            and path.stat().st_size >= smallest
        ):
            with open(path.with_name(path.name + ".gz"), "wb") as out:
                with gzip.GzipFile(
                    filename="",
                    mode="wb",
                    fileobj=out,
                    mtime=0,
                    compresslevel=9,
                ) as archive:
                    archive.write(path.read_bytes())


def configure(app, config):
    if config.language == "zh_CN":
        app.tags.add("zh")  # {only} zh: what only the Chinese edition says
    config.mathjax_path = "vendor/mathjax/startup.js"
    config.mathjax3_config = {
        **(config.mathjax3_config or {}),
        "loader": {"load": MATHJAX_PARTS},
    }
    config.html_static_path.append(str(Path(__file__).parent / "static"))
    config.html_context.setdefault("default_mode", "auto")
    config.nb_ipywidgets_js = {}  # try_it_frames draws the widgets instead
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
    app.connect("doctree-read", link_chinese_notebooks)
    # after the theme has added its launch buttons (priority 501)
    app.connect("html-page-context", link_chinese_launch_button, priority=502)
    app.add_node(fold, html=(visit_fold, depart_fold))
    app.connect("doctree-read", mark_going_deeper)
    app.connect("doctree-read", label_folds)
    app.connect("doctree-read", group_folds, priority=600)  # after labels
    app.connect("source-read", fold_answer_prose)
    app.connect("doctree-read", move_answer_prose)
    app.add_css_file("book.css")
    app.connect("html-page-context", drop_live_code_loader)
    app.connect("html-page-context", fix_citation_roles)
    app.connect("html-page-context", try_it_frames)
    app.connect("html-page-context", edition_links)
    # after the theme has written its light and dark pygments.css
    app.connect("build-finished", finish_site, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
