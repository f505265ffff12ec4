#pragma once
// Plots that fit the size they get, whatever drew them: after every layout pass of a QCustomPlot, numeric axes get
// only as many ticks as their labels have room for, a title wider than the plot shrinks (to ¾ of its size at most)
// and then wraps at its " · " separators, and a legend inside the axes moves to the corner where it covers no data
// point. Installed on every plot of the program by installPlotFitting() (an application event filter), so a view
// laid out on a 1280 × 720 projector in F11 or exported at 8.5 cm needs no code of its own for it.
class QCustomPlot;

namespace attnlab::ui {

/// Fits `plot` now and after each of its layout passes (idempotent).
void fitPlotToSize(QCustomPlot* plot);
/// Every QCustomPlot of the application gets fitPlotToSize() when it is first polished. Call once after the
/// QApplication is made (the window and `attnlab export` do).
void installPlotFitting();
/// Replots `plot` synchronously until the fitting changes nothing more (at most 3 passes): before an export draws.
void settlePlot(QCustomPlot* plot);

}  // namespace attnlab::ui
