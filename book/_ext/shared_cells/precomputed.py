# @title Precomputed frames for the website { display-mode: "form" }
import ipywidgets as widgets
import matplotlib.pyplot as plt

FRAME_DPI = 60  # small images keep the website's page light


def precomputed(explore, knobs):
    """Controls for `knobs` ({name: (description, values, default)}; a value
    may be a (label, value) pair) and the output of `explore` for every
    combination of their values, computed now. In the browser each control
    shows the matching stored frame with no kernel (jslink); in a running
    kernel a change also reruns `explore` for that setting."""
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
        with frame, plt.rc_context({"figure.dpi": FRAME_DPI}):
            explore(**chosen)

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
