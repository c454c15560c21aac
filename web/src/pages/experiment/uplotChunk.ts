// uPlot and its stylesheet, one chunk loaded on first use: the first page stays light.
import 'uplot/dist/uPlot.min.css';

export { default } from 'uplot';
