"""The floor for the first-draw benchmark: a Streamlit app with a title and one three-point Plotly chart.

Whatever this takes to draw in the benchmark's browser is Streamlit's and plotly.js's own start-up on that
machine (loading and evaluating about 5 MB of JavaScript), which no page of the app can go below.
"""

import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="reference", layout="wide")
st.title("Reference: one chart")
st.plotly_chart(go.Figure(go.Scatter(y=[1, 3, 2])), theme=None)
