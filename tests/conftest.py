"""Shared facts about the repository for the tests."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def colab_url(notebook: Path) -> str:
    """The Colab link a notebook must carry, derived from the repository set in _config.yml."""
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/").rstrip("/")
    relative = notebook.resolve().relative_to(ROOT).as_posix()
    return f"https://colab.research.google.com/github/{repo}/blob/{CONFIG['repository']['branch']}/{relative}"


def notebook_id(path: Path) -> str:
    return path.stem
