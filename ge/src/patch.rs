//! Bezier and spline patches (being written).
