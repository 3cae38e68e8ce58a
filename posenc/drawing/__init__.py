"""What every figure family draws with (no Streamlit): the registries, the theme, the shared building blocks,
the layout for phones and pages, and export.

- :mod:`drawing.params`          the parameter registry (ranges, defaults, links); shared parameters in
                                 :mod:`drawing.common_params`, what a model preset sets in :mod:`drawing.preset_params`
- :mod:`drawing.registry`        the figure registry: a figure's id, the parameters it takes, its builder
- :mod:`drawing.common`, :mod:`drawing.shown`   building blocks: heatmaps, hover text, the positions drawn
- :mod:`drawing.theme`           the styles (screen, slide, paper) and the template
- :mod:`drawing.phone_fit`, :mod:`drawing.text_wrap`, :mod:`drawing.plain_text`   titles and labels that fit a
                                 phone, and user text made safe for Plotly
- :mod:`drawing.code`            the few lines of code shown under each figure
- :mod:`drawing.export`          PNG, SVG, PDF, HTML and CSV files of a figure, laid out for their page
                                 (:mod:`drawing.export_layout`, :mod:`drawing.export_grid`), and the browser
                                 kaleido draws with (:mod:`drawing.export_browser`)
- :mod:`drawing.cache`           the byte-bounded cache of built figures

The figure families themselves are in :mod:`posenc.figures`, which draws with this package; nothing here imports
them. The two registries are filled by whoever starts the app or the API: ``posenc.figures.register_all()``
(``app.py``, :mod:`posenc.api`, ``posenc export``; importing :mod:`posenc.figures` calls it too).
"""
