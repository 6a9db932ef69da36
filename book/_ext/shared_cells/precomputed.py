# @title Precomputed frames for the website { display-mode: "form" }
import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

FRAME_DPI = 200  # sharp on a 2x screen across the website's column
FRAME_COLOURS = 32  # a palette PNG: the same figure in a third of the bytes


def frame_png(png):
    """A figure's PNG (base64) redrawn with FRAME_COLOURS colours."""
    import base64
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB")
    light = io.BytesIO()
    image.quantize(FRAME_COLOURS, dither=Image.Dither.NONE).save(
        light, format="png", dpi=(FRAME_DPI, FRAME_DPI)
    )
    return base64.b64encode(light.getvalue()).decode(), image.width


def precomputed(explore, knobs):
    """Controls for `knobs` ({name: (description, values, default)}; a value
    may be a (label, value) pair) and the output of `explore` for every
    combination of their values, computed now. With no kernel (the website,
    the slides) each control shows the matching stored frame; in a running
    kernel a change also reruns `explore` for that setting."""
    from IPython.utils.capture import capture_output

    options = {
        name: [v if isinstance(v, tuple) else (str(v), v) for v in values]
        for name, (_, values, _) in knobs.items()
    }
    controls = {
        name: (
            widgets.ToggleButtons
            if len(options[name]) <= 3
            else widgets.SelectionSlider
        )(
            options=options[name],
            value=default,
            description=description,
            style={"description_width": "initial"},
        )
        for name, (description, _, default) in knobs.items()
    }
    frames = {}

    def draw(chosen):
        frame = frames[tuple(chosen.values())]
        frame.clear_output(wait=True)
        with (
            capture_output() as shown,
            plt.rc_context({"figure.dpi": FRAME_DPI}),
        ):
            explore(**chosen)
        with frame:
            print(shown.stdout, end="")
            for output in shown.outputs:
                if "image/png" not in output.data:
                    output.display()
                    continue
                png, width = frame_png(output.data["image/png"])
                display(
                    {"image/png": png, "text/plain": output.data["text/plain"]},
                    raw=True,
                    metadata={"image/png": {"width": width * 100 // FRAME_DPI}},
                )

    def stack(chosen):
        if len(chosen) == len(knobs):
            frames[tuple(chosen.values())] = widgets.Output()
            draw(chosen)
            return frames[tuple(chosen.values())]
        name = list(knobs)[len(chosen)]
        tab = widgets.Tab(
            children=[stack({**chosen, name: v}) for _, v in options[name]]
        )
        tab.add_class("precomputed-frames")
        tab.selected_index = controls[name].index
        widgets.jslink((controls[name], "index"), (tab, "selected_index"))
        return tab

    shown = stack({})
    for control in controls.values():
        control.observe(
            lambda change: draw({n: c.value for n, c in controls.items()}),
            "value",
        )
    hide_tabs = widgets.HTML(
        "<style>.precomputed-frames > .p-TabBar, .precomputed-frames > "
        ".lm-TabBar {display: none !important} .precomputed-frames > "
        ".widget-tab-contents {border: none !important; "
        "padding: 0 !important}</style>"
    )
    return widgets.VBox([hide_tabs, *controls.values(), shown])
