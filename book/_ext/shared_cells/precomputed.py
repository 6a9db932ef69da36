# @title Helper: the widget's frames, drawn in advance { display-mode: "form" }
import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

FRAME_DPI = 200  # sharp on a 2x screen across the website's column
FRAME_COLOURS = 32  # a palette PNG: the same figure in a third of the bytes


def figure_pixels(figure):
    """Draw `figure` once at FRAME_DPI and close it; return its RGB pixels
    and its text form."""
    import numpy as np

    figure.set_dpi(FRAME_DPI)
    figure.canvas.draw()
    pixels = np.array(figure.canvas.buffer_rgba())[..., :3]
    text = repr(figure)
    plt.close(figure)
    return pixels, text


def palette_png(pixels):
    """`pixels` as a PNG (base64) of FRAME_COLOURS colours. Pillow releases
    the GIL here, so this can run beside the next frame's drawing."""
    import base64
    import io

    from PIL import Image

    light = io.BytesIO()
    Image.fromarray(pixels).quantize(
        FRAME_COLOURS, dither=Image.Dither.NONE
    ).save(light, format="png", dpi=(FRAME_DPI, FRAME_DPI))
    return base64.b64encode(light.getvalue()).decode()


def precomputed(explore, knobs):
    """Controls for `knobs` ({name: (description, values, default)}; a value
    may be a (label, value) pair) and the output of `explore` for every
    combination of their values, computed now. With no kernel (the website,
    the slides) each control shows the matching stored frame; in a running
    kernel a change also reruns `explore` for that setting."""
    from concurrent.futures import ThreadPoolExecutor
    from unittest.mock import patch

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

    def draw(chosen, encoder):
        # Run explore for `chosen`; return a function that fills its frame
        # once `encoder` (a thread) has encoded the figures.
        figures = []

        def keep():  # plt.show() while explore runs: keep the figure
            figures.extend(plt.figure(n) for n in plt.get_fignums())

        with capture_output() as shown, patch.object(plt, "show", keep):
            explore(**chosen)
        images = []
        for figure in figures:
            pixels, text = figure_pixels(figure)
            png = encoder.submit(palette_png, pixels)
            images.append((png, text, pixels.shape[1] * 100 // FRAME_DPI))

        def fill():
            frame = frames[tuple(chosen.values())]
            frame.clear_output(wait=True)
            with frame:
                print(shown.stdout, end="")
                for output in shown.outputs:
                    output.display()
                for png, text, width in images:
                    display(
                        {"image/png": png.result(), "text/plain": text},
                        raw=True,
                        metadata={"image/png": {"width": width}},
                    )

        return fill

    def stack(chosen, encoder):
        if len(chosen) == len(knobs):
            frames[tuple(chosen.values())] = widgets.Output()
            fills.append(draw(chosen, encoder))
            return frames[tuple(chosen.values())]
        name = list(knobs)[len(chosen)]
        tab = widgets.Tab(
            children=[
                stack({**chosen, name: v}, encoder) for _, v in options[name]
            ]
        )
        tab.add_class("precomputed-frames")
        tab.selected_index = controls[name].index
        widgets.jslink((controls[name], "index"), (tab, "selected_index"))
        return tab

    fills = []
    with ThreadPoolExecutor(1) as encoder:  # encodes while the next one draws
        shown = stack({}, encoder)
    for fill in fills:
        fill()

    def redraw(change):
        with ThreadPoolExecutor(1) as encoder:
            fill = draw({n: c.value for n, c in controls.items()}, encoder)
        fill()

    for control in controls.values():
        control.observe(redraw, "value")
    hide_tabs = widgets.HTML(
        "<style>.precomputed-frames > .p-TabBar, .precomputed-frames > "
        ".lm-TabBar {display: none !important} .precomputed-frames > "
        ".widget-tab-contents {border: none !important; "
        "padding: 0 !important}</style>"
    )
    return widgets.VBox([hide_tabs, *controls.values(), shown])
