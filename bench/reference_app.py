"""The floor for the first-draw benchmark: a Streamlit app with a title and one three-point Plotly chart.

Whatever this takes to draw in the benchmark's browser is Streamlit's and plotly.js's own start-up on that
machine (loading and evaluating about 5 MB of JavaScript), which no page of the app can go below.

``?widgets=1`` puts in front of the same chart what a posenc page sends before its first figure, made of
Streamlit's own elements with nothing computed: a sidebar of four select boxes, a title, a closed expander holding
text and formulas, a row of number inputs and sliders in columns, and tabs (bench/first_figure.py): what those
elements cost a new visitor's browser, apart from the app's figures and server.
"""

import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="reference", layout="wide")
if st.query_params.get("widgets") == "1":
    with st.sidebar:
        for label in ("Language", "Model preset", "Compute device", "Figure style"):
            st.selectbox(label, ["a", "b", "c"])
        st.caption("In use: **cpu**")
    st.title("Reference: one chart behind a page's controls")
    with st.expander("The idea and the formulas", icon="📖"):
        st.markdown("Text with a formula $\\theta_i = b^{-2i/d}$ and **bold** words.")
        for column in st.columns(2):
            with column:
                st.latex(
                    r"R(m) = \begin{pmatrix}\cos m\theta & -\sin m\theta\\ \sin m\theta & \cos m\theta"
                    r"\end{pmatrix}"
                )
    for index, column in enumerate(st.columns(5)):
        with column:
            if index < 3:
                st.number_input(f"number {index}", value=64)
            else:
                st.slider(f"slider {index}", 0, 100, 50)
    tab, *_ = st.tabs(["First", "Second", "Third", "All sections"])
    with tab:
        st.plotly_chart(go.Figure(go.Scatter(y=[1, 3, 2])), theme=None)
else:
    st.title("Reference: one chart")
    st.plotly_chart(go.Figure(go.Scatter(y=[1, 3, 2])), theme=None)
